import type { KubernetesObject, ObjectCallback } from '@kubernetes/client-node';
import type { ResilientInformer } from './informer.js';

type Handlers<T extends KubernetesObject> = Record<'add' | 'update' | 'delete', ObjectCallback<T>[]>;

/**
 * One informer per namespace, for the namespaces a controller needs to
 * watch now: {@link watch} starts those that are new and stops those no
 * longer needed (their cache goes with them). What the operator may list is
 * up to each namespace (a RoleBinding), so nothing is watched cluster-wide,
 * and nothing where no ConfigMirror reads or writes.
 */
export class NamespacedInformers<T extends KubernetesObject> {
  private readonly informers = new Map<string, ResilientInformer<T>>();
  private readonly handlers: Handlers<T> = { add: [], update: [], delete: [] };
  private running = false;

  constructor(private readonly make: (namespace: string) => ResilientInformer<T>) {}

  onAdd(handler: ObjectCallback<T>): void {
    this.handlers.add.push(handler);
  }

  onUpdate(handler: ObjectCallback<T>): void {
    this.handlers.update.push(handler);
  }

  onDelete(handler: ObjectCallback<T>): void {
    this.handlers.delete.push(handler);
  }

  /** The namespaces watched now. */
  get namespaces(): string[] {
    return [...this.informers.keys()];
  }

  /** Every cached object, of every namespace watched. */
  list(): T[] {
    return [...this.informers.values()].flatMap((informer) => [...informer.list()]);
  }

  /** Starts watching: the namespaces of {@link watch} are watched from now on. */
  start(): void {
    this.running = true;
    for (const informer of this.informers.values()) informer.start();
  }

  /** Watches exactly `namespaces`: starts an informer for each new one, stops those not listed. */
  watch(namespaces: ReadonlySet<string>): void {
    for (const [namespace, informer] of this.informers) {
      if (namespaces.has(namespace)) continue;
      this.informers.delete(namespace);
      void informer.stop();
    }
    for (const namespace of namespaces) {
      if (this.informers.has(namespace)) continue;
      const informer = this.make(namespace);
      for (const handler of this.handlers.add) informer.onAdd(handler);
      for (const handler of this.handlers.update) informer.onUpdate(handler);
      for (const handler of this.handlers.delete) informer.onDelete(handler);
      this.informers.set(namespace, informer);
      if (this.running) informer.start();
    }
  }

  /** Stops every informer. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all([...this.informers.values()].map((informer) => informer.stop()));
  }
}
