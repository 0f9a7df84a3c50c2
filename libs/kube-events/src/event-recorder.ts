import { V1MicroTime, type KubernetesObject } from '@kubernetes/client-node';
import { loadDefaultKubeConfig } from './default-kube-config.js';
import { eventBody, eventNamespace } from './event-body.js';
import { validateEvent } from './event-validation.js';
import { EventsApi, type EventsWriter } from './events-api.js';
import { PublishApiError, PublishTimeoutError } from './errors.js';
import type { KubeEvent, KubeEventsModuleOptions, Reporter, ResolvedRecorderOptions } from './kube-events.interfaces.js';
import { resolveRecorderOptions } from './options-validation.js';
import { SeriesStore, type Series, type SeriesEvent } from './series-store.js';

/** What a repeat must match, besides the series key, to patch the last Event. */
interface EventIdentity {
  type: string;
  note: string | undefined;
  related: string | undefined;
}

interface RecordedEvent extends SeriesEvent, EventIdentity {}


/**
 * Publishes `events.k8s.io/v1` Events on behalf of one controller.
 *
 * Repeats fold into series: a publish equal to the series' last Event
 * (type, reason, action, note, related) within `seriesWindow` of its last
 * write raises `series.count` with a JSON merge patch instead of creating an
 * object. Publishes of one series run one at a time; every publish settles
 * within `timeout`, and a timed-out request is aborted.
 *
 * `kubectl describe <object>` lists the Events under the object: `Type`,
 * `Reason`, `Age` (with the series count, `x3 over 2m`), `From`
 * (`reporter.controller`) and `Message` (the note).
 *
 * RBAC: `create` and `patch` on `events` in API group `events.k8s.io`, in
 * every namespace the controller publishes about, and in `default` for
 * cluster-scoped objects.
 *
 * @example
 * const recorder = new EventRecorder({ reporter: { controller: 'example.com/widget-controller' } });
 * await recorder.publish(widget, { type: 'Normal', reason: 'Scaled', action: 'Scale', note: 'scaled to 3' });
 */
export class EventRecorder {
  /** Who publishes, as written to `reportingController` and `reportingInstance`. */
  readonly reporter: Readonly<Required<Reporter>>;
  private readonly options: ResolvedRecorderOptions;
  private readonly api: EventsWriter;
  private readonly store: SeriesStore;

  /**
   * @param writer where Events go; the API server of `options.kubeConfig` unless given
   * @throws Error naming the field when an option is invalid
   */
  constructor(options: KubeEventsModuleOptions, writer?: EventsWriter) {
    this.options = resolveRecorderOptions(options);
    this.reporter = Object.freeze({ ...this.options.reporter });
    this.api = writer ?? new EventsApi(options.kubeConfig ?? loadDefaultKubeConfig());
    this.store = new SeriesStore(this.options.seriesWindow, this.options.maxSeries);
  }

  /** How long one publish may take, in milliseconds. */
  get timeout(): number {
    return this.options.timeout;
  }

  /** How many series the recorder tracks now. */
  get trackedSeries(): number {
    return this.store.size;
  }

  /**
   * Publishes an Event about `resource`, or raises the count of its series.
   *
   * @throws InvalidEventError before any request, naming the bad field
   * @throws PublishTimeoutError when the publish did not settle within `timeout`
   * @throws PublishApiError when the API server refused it or could not be reached
   */
  publish(resource: KubernetesObject, event: KubeEvent): Promise<void> {
    return this.record(resource, event, false);
  }

  /** Forgets every series of `resource`: its next publish creates a new Event. */
  forget(resource: KubernetesObject): void {
    const uid = resource?.metadata?.uid;
    if (uid) this.store.forget(uid);
  }

  /**
   * Publishes a failure Event: like {@link publish}, in a series of its own
   * that {@link forgetFailures} resets. `@PublishesFailures` calls these two.
   */
  publishFailure(resource: KubernetesObject, event: KubeEvent): Promise<void> {
    return this.record(resource, event, true);
  }

  /** Forgets the failure series of `resource` only, as after a successful reconcile. */
  forgetFailures(resource: KubernetesObject): void {
    const uid = resource?.metadata?.uid;
    if (uid) this.store.forget(uid, true);
  }

  private async record(resource: KubernetesObject, event: KubeEvent, failure: boolean): Promise<void> {
    const valid = validateEvent(resource, event);
    const uid = resource.metadata?.uid;
    if (!uid) return this.withinTimeout((signal) => this.create(resource, valid, signal).then(() => undefined));
    const key = `${failure ? 'failure' : 'publish'}\0${uid}\0${valid.reason}\0${valid.action}`;
    const series = this.store.acquire(key, uid, failure, Date.now());
    return this.withinTimeout((signal) => this.enqueue(series, () => this.write(series, resource, valid, signal), signal));
  }

  /** Runs `work` after the series' earlier publishes, unless this publish timed out meanwhile. */
  private enqueue(series: Series, work: () => Promise<void>, signal: AbortSignal): Promise<void> {
    const run = series.tail.then(() => (signal.aborted ? undefined : work()));
    const settled = run.then(
      () => this.store.release(series),
      () => this.store.release(series),
    );
    series.tail = settled;
    return run;
  }

  /** Patches the series' last Event when this publish repeats it, else creates a new one. */
  private async write(series: Series, resource: KubernetesObject, event: KubeEvent, signal: AbortSignal): Promise<void> {
    const now = Date.now();
    const last = series.event as RecordedEvent | undefined;
    const identity = identityOf(event);
    if (last && sameIdentity(last, identity) && this.store.isCurrent(last, now)) {
      const count = last.count + 1;
      try {
        await this.api.patchSeries(last.namespace, last.name, { count, lastObservedTime: new V1MicroTime(now) }, signal);
        last.count = count;
        last.publishedAt = now;
        return;
      } catch (error) {
        // The server deletes Events an --event-ttl after their last update: start the series anew.
        if (!(error instanceof PublishApiError && error.statusCode === 404)) throw error;
      }
    }
    const { name, namespace } = await this.create(resource, event, signal, now);
    const recorded: RecordedEvent = { name, namespace, count: 1, publishedAt: now, ...identity };
    series.event = recorded;
  }

  private async create(resource: KubernetesObject, event: KubeEvent, signal: AbortSignal, now = Date.now()) {
    const namespace = eventNamespace(resource);
    const name = await this.api.create(namespace, eventBody(resource, event, this.options.reporter, now), signal);
    return { name, namespace };
  }

  /** Settles with `work`, or rejects with PublishTimeoutError and aborts `work`'s requests. */
  private withinTimeout(work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const controller = new AbortController();
    const { timeout } = this.options;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new PublishTimeoutError(timeout));
        controller.abort();
      }, timeout);
      work(controller.signal)
        .then(resolve, reject)
        .finally(() => clearTimeout(timer));
    });
  }
}

function identityOf(event: KubeEvent): EventIdentity {
  return { type: event.type, note: event.note, related: event.related && JSON.stringify(event.related) };
}

function sameIdentity(a: EventIdentity, b: EventIdentity): boolean {
  return a.type === b.type && a.note === b.note && a.related === b.related;
}
