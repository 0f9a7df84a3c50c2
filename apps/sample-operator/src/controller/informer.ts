import { Logger } from '@nestjs/common';
import {
  ADD,
  DELETE,
  ERROR,
  ListWatch,
  UPDATE,
  type makeInformer,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type ListPromise,
  type ObjectCache,
  type ObjectCallback,
} from '@kubernetes/client-node';
import { describeError, systemClock, type KubeEventsClock, type KubeEventsTimer } from 'nestjs-kube-events';
import { ItemExponentialBackoff } from './backoff.js';
import { TrimmingWatch } from '../kube/trimming-watch.js';

/** Options of {@link ResilientInformer}. */
export interface ResilientInformerOptions<T extends KubernetesObject> {
  /** Names the informer in logs, e.g. `configmirrors`. */
  name: string;
  kubeConfig: KubeConfig;
  /** The watch path, e.g. `/api/v1/configmaps`. */
  path: string;
  /** Lists the objects at `path` (the informer's initial list and relists). */
  list: ListPromise<T>;
  labelSelector?: string;
  /**
   * Reduces each object, listed or watched, to what the handlers and the
   * cache need, before the cache keeps it: what a tenant puts in an object
   * then costs the operator nothing.
   * @default the object as it is
   */
  trim?: (object: T) => T;
  /**
   * Watch metadata only (`PartialObjectMetadata`); `list` should ask for
   * `PartialObjectMetadataList` as well.
   * @default false
   */
  metadataOnly?: boolean;
  /**
   * Every `resyncPeriodMs`, the resync handlers are called with every cached
   * object, as client-go's resync does; `0` turns it off.
   * @default 0
   */
  resyncPeriodMs?: number;
  /**
   * Delay before the first restart after the watch failed, in ms; it doubles
   * per consecutive failure.
   * @default 1000
   */
  reconnectBaseDelayMs?: number;
  /**
   * Ceiling on the restart delay, in ms.
   * @default 30_000
   */
  reconnectMaxDelayMs?: number;
  /** Adds advice to the log line of a failed list/watch, e.g. "is the CRD installed?". */
  hint?: (statusCode: number | undefined) => string | undefined;
  /** Times the restarts and resyncs. @default the library's `systemClock` */
  clock?: KubeEventsClock;
  /** Builds the underlying informer; tests replace it. @default a ListWatch through a {@link TrimmingWatch} */
  makeInformer?: typeof makeInformer;
}

/**
 * An informer from `@kubernetes/client-node` (`makeInformer`, a `ListWatch`)
 * that keeps itself running. `ListWatch` reconnects by itself when a watch ends
 * normally or times out (and relists on `410 Gone`), but stops for good on any
 * other error (API server unreachable, 401/403, a failed list): this wrapper
 * restarts it with exponential backoff, from the last resource version it saw.
 * It also adds client-go's periodic resync and a {@link whenSynced} promise.
 */
export class ResilientInformer<T extends KubernetesObject> implements ObjectCache<T> {
  private readonly logger: Logger;
  private readonly informer: Informer<T> & ObjectCache<T>;
  private readonly clock: KubeEventsClock;
  private readonly reconnect: ItemExponentialBackoff<'reconnect'>;
  private readonly resyncHandlers: ObjectCallback<T>[] = [];
  private restartTimer: KubeEventsTimer | undefined;
  private resyncTimer: KubeEventsTimer | undefined;
  private running = false;
  private starting = false;
  private failedWhileStarting = false;
  private synced = false;
  private resolveSynced!: () => void;
  private readonly syncedPromise = new Promise<void>((resolve) => (this.resolveSynced = resolve));

  constructor(private readonly options: ResilientInformerOptions<T>) {
    this.logger = new Logger(`Informer(${options.name})`);
    this.clock = options.clock ?? systemClock;
    this.reconnect = new ItemExponentialBackoff({
      baseDelayMs: options.reconnectBaseDelayMs ?? 1_000,
      maxDelayMs: options.reconnectMaxDelayMs ?? 30_000,
    });
    const trim = options.trim ?? ((object: T) => object);
    const list: ListPromise<T> = async () => {
      const listed = await options.list();
      // A metadata-only list of nothing has `items: null` (Go's nil slice).
      return { ...listed, items: ((listed.items as T[] | null) ?? []).map(trim) };
    };
    const make =
      options.makeInformer ??
      ((kubeConfig: KubeConfig, path: string, listFn: ListPromise<T>, labelSelector?: string) =>
        new ListWatch<T>(
          path,
          new TrimmingWatch<T>(kubeConfig, { trim, metadataOnly: options.metadataOnly }),
          listFn,
          false,
          labelSelector,
        ));
    this.informer = make(options.kubeConfig, options.path, list, options.labelSelector);
    this.informer.on(ERROR, (error) => this.onError(error));
  }

  /** Whether the initial list has been delivered. */
  get hasSynced(): boolean {
    return this.synced;
  }

  onAdd(handler: ObjectCallback<T>): void {
    this.informer.on(ADD, handler);
  }

  onUpdate(handler: ObjectCallback<T>): void {
    this.informer.on(UPDATE, handler);
  }

  onDelete(handler: ObjectCallback<T>): void {
    this.informer.on(DELETE, handler);
  }

  /** Called with every cached object each resync period. */
  onResync(handler: ObjectCallback<T>): void {
    this.resyncHandlers.push(handler);
  }

  get(name: string, namespace?: string): T | undefined {
    return this.informer.get(name, namespace);
  }

  list(namespace?: string): readonly T[] {
    return this.informer.list(namespace);
  }

  /** Starts listing and watching in the background; see {@link whenSynced}. */
  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
    this.scheduleResync();
  }

  /** Resolves once the initial list has been delivered to the handlers. */
  whenSynced(): Promise<void> {
    return this.syncedPromise;
  }

  /** Stops the watch and every timer. Errors caused by the stop are not reported. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.clearTimer('restartTimer');
    this.clearTimer('resyncTimer');
    await this.informer.stop();
  }

  private async connect(): Promise<void> {
    this.restartTimer = undefined;
    if (!this.running) return;
    this.starting = true;
    this.failedWhileStarting = false;
    try {
      await this.informer.start();
    } catch (error) {
      this.failedWhileStarting = true;
      this.logFailure(error);
    } finally {
      this.starting = false;
    }
    // Stopped while the list was in flight: client-node would go on to watch.
    if (!this.running) {
      await this.informer.stop();
      return;
    }
    if (this.failedWhileStarting) {
      this.scheduleRestart();
      return;
    }
    if (this.reconnect.numRequeues('reconnect') > 0) {
      this.logger.log('watch re-established');
    }
    this.reconnect.forget('reconnect');
    if (!this.synced) {
      this.synced = true;
      this.resolveSynced();
    }
  }

  private onError(error: unknown): void {
    if (!this.running) return;
    this.logFailure(error);
    if (this.starting) {
      this.failedWhileStarting = true;
    } else {
      this.scheduleRestart();
    }
  }

  private scheduleRestart(): void {
    if (!this.running || this.restartTimer !== undefined) return;
    const delayMs = this.reconnect.when('reconnect');
    this.logger.warn(`restarting the watch in ${delayMs} ms`);
    this.restartTimer = this.clock.setTimer(delayMs, () => void this.connect(), true);
  }

  private scheduleResync(): void {
    const periodMs = this.options.resyncPeriodMs ?? 0;
    if (!this.running || periodMs <= 0) return;
    this.resyncTimer = this.clock.setTimer(
      periodMs,
      () => {
        if (this.synced) {
          for (const object of this.informer.list()) {
            for (const handler of this.resyncHandlers) handler(object);
          }
        }
        this.scheduleResync();
      },
      true,
    );
  }

  private clearTimer(field: 'restartTimer' | 'resyncTimer'): void {
    const timer = this[field];
    if (timer !== undefined) this.clock.clearTimer(timer);
    this[field] = undefined;
  }

  private logFailure(error: unknown): void {
    const raw = error as { statusCode?: unknown; code?: unknown } | undefined;
    const code = [raw?.statusCode, raw?.code].find((value): value is number => typeof value === 'number');
    const hint = this.options.hint?.(code);
    this.logger.warn(
      `list/watch ${this.options.path} failed${code ? ` (HTTP ${code})` : ''}: ${describeError(error)}${hint ? `; ${hint}` : ''}`,
    );
  }
}
