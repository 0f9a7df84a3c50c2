import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CoreV1Api, CustomObjectsApi, KubeConfig, type V1ConfigMap, type V1Namespace } from '@kubernetes/client-node';
import { EventRecorder } from 'nestjs-kube-events';
import { ItemExponentialBackoff } from '../controller/backoff.js';
import type { ResilientInformer } from '../controller/informer.js';
import { NamespacedInformers } from '../controller/namespaced-informers.js';
import { objectKey, splitObjectKey } from '../controller/object-key.js';
import { QueueWorkers } from '../controller/queue-workers.js';
import { WorkQueue } from '../controller/work-queue.js';
import { OPERATOR_OPTIONS, type ResolvedOperatorOptions } from '../operator.options.js';
import { CONFIG_MIRROR_API_VERSION, CONFIG_MIRROR_KIND } from './config-mirror.constants.js';
import { configMapInformer, configMirrorInformer, namespaceInformer } from './config-mirror.informers.js';
import { ConfigMirrorReconciler } from './config-mirror.reconciler.js';
import { ConfigMirrorStatusWriter } from './config-mirror.status-writer.js';
import type { ConfigMirror } from './config-mirror.types.js';
import { copyClaim } from './mirrored-config-map.js';
import { acceptsMirrorsFrom, mayReadSource, type NamespaceRules } from './namespace-rules.js';

/** Logged once both informers have synced and the workers run. */
const READY_MESSAGE = 'ConfigMirror controller ready';

/** What the controller's caches hold: how many objects, and their size as JSON. */
export interface CacheStats {
  objects: number;
  bytes: number;
  /** The namespaces whose ConfigMaps are watched. */
  configMapNamespaces: string[];
}

/**
 * The controller loop: informers on ConfigMirrors and ConfigMaps feed
 * `namespace/name` keys of ConfigMirrors into a rate-limited {@link WorkQueue};
 * workers take keys, look the ConfigMirror up in the informer's cache and
 * call {@link ConfigMirrorReconciler.reconcile}. A failed key is retried with
 * per-key exponential backoff; a successful one has its backoff forgotten.
 *
 * A ConfigMirror is queued when it is added, when its spec changes (its
 * `metadata.generation`; status writes do not requeue it), on each resync,
 * when its source ConfigMap changes, when someone edits or deletes one of
 * its copies, and (with `opted-in` targets) when a target namespace comes to
 * accept its copies. A ConfigMap counts as its copy only when it sits where
 * the mirror writes and names the mirror's uid: the owner annotation alone
 * is anyone's to write.
 *
 * ConfigMaps are watched metadata only, in the namespaces ConfigMirrors read
 * or write and nowhere else, and cached trimmed (see trimmed-objects.ts):
 * what a tenant stores in its ConfigMaps costs the operator nothing, and a
 * reconcile reads the content it needs.
 *
 * Starts when the application bootstraps, or, with leader election, when
 * this replica acquires the Lease (the operator calls {@link start}). On
 * shutdown it stops taking work at once, stops the watches, then lets the
 * reconciles in flight finish (within `shutdownTimeoutMs`, after which it
 * cancels them). When the replica loses the Lease ({@link abandon}), it
 * cancels the reconciles in flight at once instead: another replica may be
 * reconciling by then. It does not start again once stopped.
 */
@Injectable()
export class ConfigMirrorController implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ConfigMirrorController.name);
  private readonly mirrors: ResilientInformer<ConfigMirror>;
  /** Per namespace that a ConfigMirror reads or writes: its ConfigMaps' metadata. */
  private readonly configMaps: NamespacedInformers<V1ConfigMap>;
  private readonly rules: NamespaceRules;
  /** With `opted-in` targets only: Namespaces, to see a target come to accept copies. */
  private readonly namespaces: ResilientInformer<V1Namespace> | undefined;
  private readonly queue: WorkQueue<string>;
  private readonly workers: QueueWorkers<string>;
  /** The generation last queued per ConfigMirror key. */
  private readonly generations = new Map<string, string>();
  private started = false;
  private stopping: Promise<void> | undefined;
  private readonly ready: Promise<void>;
  /** Aborted to cancel every reconcile in flight. */
  private readonly cancellation = new AbortController();

  constructor(
    kubeConfig: KubeConfig,
    core: CoreV1Api,
    customObjects: CustomObjectsApi,
    private readonly reconciler: ConfigMirrorReconciler,
    private readonly statusWriter: ConfigMirrorStatusWriter,
    private readonly recorder: EventRecorder,
    @Inject(OPERATOR_OPTIONS) private readonly options: ResolvedOperatorOptions,
  ) {
    this.queue = new WorkQueue<string>({
      rateLimiter: new ItemExponentialBackoff({
        baseDelayMs: options.retryBaseDelayMs,
        maxDelayMs: options.retryMaxDelayMs,
      }),
    });
    this.workers = new QueueWorkers(this.queue, (key) => this.process(key), {
      concurrency: options.workers,
      logger: this.logger,
    });
    this.mirrors = configMirrorInformer(kubeConfig, customObjects, { resyncPeriodMs: options.resyncPeriodMs });
    this.rules = { sources: options.mirrorSources, targets: options.mirrorTargets };
    this.configMaps = new NamespacedInformers((namespace) => configMapInformer(kubeConfig, core, namespace));
    this.namespaces = options.mirrorTargets === 'opted-in' ? namespaceInformer(kubeConfig, core) : undefined;
    this.ready = Promise.all(this.informers().map((informer) => informer.whenSynced())).then(() => undefined);
    this.watchMirrors();
    this.watchConfigMaps();
    this.watchNamespaces();
  }

  /** Whether every informer has synced. */
  get isReady(): boolean {
    return this.informers().every((informer) => informer.hasSynced);
  }

  /** Resolves once every informer has delivered its initial list (and never if the API server stays unreachable). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** The size of what the controller caches (ConfigMirrors, Namespaces, ConfigMaps' metadata). */
  cacheStats(): CacheStats {
    const objects = [...this.mirrors.list(), ...(this.namespaces?.list() ?? []), ...this.configMaps.list()];
    const bytes = objects.reduce((sum, object) => sum + Buffer.byteLength(JSON.stringify(object)), 0);
    return { objects: objects.length, bytes, configMapNamespaces: this.configMaps.namespaces.sort() };
  }

  /** The ConfigMirror as the informer last saw it. */
  getConfigMirror(namespace: string, name: string): ConfigMirror | undefined {
    return this.mirrors.get(name, namespace);
  }

  /** Whether the informers and workers run (started, and not stopped). */
  get isRunning(): boolean {
    return this.started && !this.stopping;
  }

  /** Whether it was stopped (the application shuts down, or the replica lost the Lease): it never starts again. */
  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  onApplicationBootstrap(): void {
    // With leader election, only the replica that holds the Lease runs the controller: the operator starts it then.
    if (!this.options.leaderElect) this.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /** Starts the informers and the workers. Does nothing once it was started or stopped. */
  start(): void {
    if (this.started || this.stopping) return;
    this.started = true;
    this.workers.start();
    for (const informer of this.informers()) informer.start();
    this.configMaps.start();
    void this.ready.then(() => {
      if (!this.stopping) {
        this.logger.log(
          `${READY_MESSAGE} (${this.workers.concurrency} workers, ${this.mirrors.list().length} ConfigMirrors)`,
        );
      }
    });
  }

  /** Stops the watches, then drains the reconciles in flight. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  /**
   * Stops as {@link stop} does, but cancels the reconciles in flight first:
   * their API calls are aborted and they write nothing more (no copy, no
   * status, no Event). For a replica that lost the Lease.
   */
  abandon(reason: string): Promise<void> {
    this.cancellation.abort(new Error(`reconcile cancelled: ${reason}`));
    return this.stop();
  }

  private async shutDown(): Promise<void> {
    if (!this.started) return;
    this.logger.log('stopping: closing watches, draining reconciles in flight');
    // The queue first: from here on no reconcile starts (a replica that lost the Lease must stop at once).
    const inFlight = this.queue.inFlight;
    const drained = this.workers.stop().then(() => 'drained' as const);
    await Promise.all([...this.informers().map((informer) => informer.stop()), this.configMaps.stop()]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.options.shutdownTimeoutMs);
    });
    const outcome = await Promise.race([drained, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      this.logger.warn(
        `gave up waiting for ${this.queue.inFlight} reconcile(s) after ${this.options.shutdownTimeoutMs} ms: cancelling them`,
      );
      this.cancellation.abort(
        new Error(`reconcile cancelled: shutdown took longer than ${this.options.shutdownTimeoutMs} ms`),
      );
    } else {
      this.logger.log(`stopped (${inFlight} reconcile(s) were in flight)`);
    }
  }

  private async process(key: string): Promise<void | 'requeue'> {
    const { namespace, name } = splitObjectKey(key);
    const cached = this.mirrors.get(name, namespace);
    if (!cached || this.cancellation.signal.aborted) return;
    const mirror = withTypeMeta(cached);
    // The reconcile runs in its own span (`traceLink`), linked to the trace that changed the mirror.
    const result = await this.reconciler.reconcile(mirror, this.cancellation.signal);
    // The status write met a newer ConfigMirror: run again on it once the informer has it.
    if (result.incomplete === 'status-conflict') return 'requeue';
  }

  private watchMirrors(): void {
    this.mirrors.onAdd((mirror) => {
      this.enqueueMirror(mirror, true);
      this.watchConfigMapsWhereNeeded();
    });
    this.mirrors.onUpdate((mirror) => {
      this.enqueueMirror(mirror, false);
      this.watchConfigMapsWhereNeeded();
    });
    this.mirrors.onResync((mirror) => this.enqueueMirror(mirror, true));
    this.mirrors.onDelete((mirror) => {
      this.forgetMirror(mirror);
      this.watchConfigMapsWhereNeeded();
    });
  }

  /**
   * A source's change queues the mirrors that copy it; an edit or deletion
   * of a copy queues the mirror that wrote it, which reads the copy and
   * repairs it if it drifted. (The operator's own writes come back here too:
   * their reconcile finds the copies current and writes nothing.)
   */
  private watchConfigMaps(): void {
    const onChange = (configMap: V1ConfigMap) => {
      for (const mirror of this.mirrorsWithSource(configMap)) this.queue.add(objectKey(mirror));
      const owner = this.verifiedOwner(configMap);
      if (owner) this.queue.add(owner);
    };
    this.configMaps.onAdd((configMap) => {
      for (const mirror of this.mirrorsWithSource(configMap)) this.queue.add(objectKey(mirror));
    });
    this.configMaps.onUpdate(onChange);
    this.configMaps.onDelete(onChange);
  }

  /**
   * Watches the ConfigMaps of the namespaces ConfigMirrors read (their
   * source's) and write (their targets that accept them), and no others.
   */
  private watchConfigMapsWhereNeeded(): void {
    const needed = new Set<string>();
    for (const mirror of this.mirrors.list()) {
      const own = mirror.metadata.namespace;
      const sourceNamespace = mirror.spec?.sourceNamespace || own;
      if (mayReadSource(this.rules, own, sourceNamespace)) needed.add(sourceNamespace);
      for (const target of mirror.spec?.targetNamespaces ?? []) {
        if (this.writesInto(mirror, target)) needed.add(target);
      }
    }
    this.configMaps.watch(needed);
  }

  /** Whether `mirror` may write its copy into `namespace`, by the namespace rules and the namespace's labels as cached. */
  private writesInto(mirror: ConfigMirror, namespace: string): boolean {
    if (this.rules.targets === 'any-namespace' || namespace === mirror.metadata.namespace) return true;
    const target = this.namespaces?.get(namespace);
    return target !== undefined && acceptsMirrorsFrom(target, mirror.metadata.namespace);
  }

  /**
   * The key of the mirror `configMap` is a copy of, if that can be
   * verified: its claim names a mirror that exists with that uid, the
   * ConfigMap has that mirror's source name and sits in one of its targets,
   * where the mirror may write. A forged claim (another tenant's mirror
   * named in an annotation) queues nothing.
   */
  private verifiedOwner(configMap: V1ConfigMap): string | undefined {
    const claim = copyClaim(configMap);
    const namespace = configMap.metadata?.namespace;
    if (!claim || !namespace) return undefined;
    const { namespace: mirrorNamespace, name } = splitObjectKey(claim.owner);
    const mirror = this.mirrors.get(name, mirrorNamespace);
    if (mirror?.metadata.uid !== claim.uid) return undefined;
    const targets = mirror.spec?.targetNamespaces ?? [];
    if (mirror.spec?.sourceName !== configMap.metadata?.name || !targets.includes(namespace)) return undefined;
    if (!this.writesInto(mirror, namespace)) return undefined;
    return objectKey(mirror);
  }

  /**
   * A target namespace that comes to accept copies from a mirror's namespace
   * (created with the label, or labelled) queues the mirrors of that
   * namespace that list it. Nothing else about a namespace queues a mirror:
   * a refusal repeated when a namespace that did not opt in is created or
   * changed would tell the mirror's author that it exists.
   */
  private watchNamespaces(): void {
    if (!this.namespaces) return;
    // The informer hands an update the new object only: the one before it is kept here.
    const seen = new Map<string, V1Namespace>();
    const onChange = (namespace: V1Namespace) => {
      const name = namespace.metadata?.name;
      if (!name) return;
      const before = seen.get(name);
      seen.set(name, namespace);
      this.watchConfigMapsWhereNeeded();
      for (const mirror of this.mirrors.list()) {
        const from = mirror.metadata.namespace;
        if (!mirror.spec?.targetNamespaces?.includes(name) || !acceptsMirrorsFrom(namespace, from)) continue;
        if (before && acceptsMirrorsFrom(before, from)) continue;
        this.queue.add(objectKey(mirror));
      }
    };
    this.namespaces.onAdd(onChange);
    this.namespaces.onUpdate(onChange);
    this.namespaces.onDelete((namespace) => {
      seen.delete(namespace.metadata?.name ?? '');
      this.watchConfigMapsWhereNeeded();
    });
  }

  private informers(): Pick<ResilientInformer<never>, 'start' | 'stop' | 'whenSynced' | 'hasSynced'>[] {
    return [this.mirrors, ...(this.namespaces ? [this.namespaces] : [])];
  }

  private enqueueMirror(mirror: ConfigMirror, always: boolean): void {
    const key = objectKey(mirror);
    // The uid too: a mirror deleted and made again under its name while the watch was down is a new object.
    const seen = `${mirror.metadata.uid}/${mirror.metadata.generation}`;
    if (!always && this.generations.get(key) === seen) return;
    this.generations.set(key, seen);
    this.queue.add(key);
  }

  private forgetMirror(mirror: ConfigMirror): void {
    const key = objectKey(mirror);
    this.generations.delete(key);
    this.queue.forget(key);
    this.statusWriter.forget(mirror);
    try {
      this.recorder.forget(withTypeMeta(mirror));
    } catch (error) {
      this.logger.warn(`could not forget the Event series of ${key}: ${String(error)}`);
    }
  }

  /**
   * The mirrors that copy `configMap` and may read it. A mirror that names a
   * source it may not read is not queued by that source's changes: its
   * refusals would then come when the source changes, and tell its author
   * that it exists.
   */
  private mirrorsWithSource(configMap: V1ConfigMap): ConfigMirror[] {
    const namespace = configMap.metadata?.namespace;
    const name = configMap.metadata?.name;
    if (!namespace) return [];
    const rules = this.rules;
    return this.mirrors
      .list()
      .filter(
        (mirror) =>
          mirror.spec?.sourceName === name &&
          (mirror.spec.sourceNamespace || mirror.metadata.namespace) === namespace &&
          mayReadSource(rules, mirror.metadata.namespace, namespace),
      );
  }
}

/** Informer objects may lack apiVersion/kind; Events need them. Returns a copy, never the cached object. */
function withTypeMeta(mirror: ConfigMirror): ConfigMirror {
  return {
    ...mirror,
    apiVersion: mirror.apiVersion ?? CONFIG_MIRROR_API_VERSION,
    kind: mirror.kind ?? CONFIG_MIRROR_KIND,
  };
}
