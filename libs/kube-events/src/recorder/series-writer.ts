import { V1MicroTime, type KubernetesObject } from '@kubernetes/client-node';
import { eventBody, eventNamespace } from '../api/event-body.js';
import type { EventsWriter } from '../api/events-api.js';
import { PublishApiError, PublishTimeoutError } from '../errors.js';
import type { KubeEvent, Reporter } from '../kube-events.interfaces.js';
import { monotonicNow } from './monotonic-clock.js';
import type { EventIdentity, Series, SeriesStore } from './series-store.js';

/** What a write did. */
export interface Written {
  kind: 'created' | 'patched';
  name: string;
  namespace: string;
  /** The series count now on the server. */
  count: number;
}

/**
 * Writes Events for a recorder: a series' occurrences as a create or a JSON
 * merge patch of its count, one write per series at a time, each aborted
 * after the recorder's timeout.
 */
export class SeriesWriter {
  /** Every write in flight. */
  readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly api: EventsWriter,
    private readonly store: SeriesStore,
    private readonly reporter: Required<Reporter>,
    private readonly timeout: number,
    /** Called once a series' write has settled, so that its folded occurrences get their turn. */
    private readonly onSettled: (series: Series) => void,
  ) {}

  /**
   * Runs one write, aborted after `timeout`: the returned promise rejects
   * with PublishTimeoutError right then. For a series, the write is its one
   * write in flight until the write itself has settled, which the abort
   * makes prompt.
   */
  run<T>(series: Series | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const { timeout } = this;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new PublishTimeoutError(timeout)), timeout);
    const run = work(controller.signal).finally(() => clearTimeout(timer));
    this.inFlight.add(run);
    const forget = () => this.inFlight.delete(run);
    run.then(forget, forget);
    if (series) {
      series.writing = run;
      series.busy++;
      const settled = () => {
        series.writing = undefined;
        series.busy--;
        this.onSettled(series);
      };
      run.then(settled, settled);
    }
    return Promise.race([run, rejectedOnAbort(controller.signal)]);
  }

  /** Patches the series' last Event when the occurrences repeat it, else creates a new one carrying them. */
  async write(
    series: Series,
    resource: KubernetesObject,
    event: KubeEvent,
    identity: EventIdentity,
    occurrences: number,
    signal: AbortSignal,
  ): Promise<Written> {
    const now = monotonicNow();
    const last = series.event;
    if (last && sameIdentity(last, identity) && this.store.isCurrent(last, now)) {
      const count = last.count + occurrences;
      try {
        await this.api.patchSeries(last.namespace, last.name, { count, lastObservedTime: new V1MicroTime() }, signal);
        last.count = count;
        last.publishedAt = now;
        return { kind: 'patched', name: last.name, namespace: last.namespace, count };
      } catch (error) {
        // The server deletes Events an --event-ttl after their last update: start the series anew.
        if (!(error instanceof PublishApiError && error.statusCode === 404)) throw error;
      }
    }
    const created = await this.create(resource, event, occurrences, signal);
    series.event = { name: created.name, namespace: created.namespace, count: occurrences, publishedAt: now, ...identity };
    return created;
  }

  /** Creates an Event carrying `count` occurrences. */
  async create(resource: KubernetesObject, event: KubeEvent, count: number, signal: AbortSignal): Promise<Written> {
    const namespace = eventNamespace(resource);
    const name = await this.api.create(namespace, eventBody(resource, event, this.reporter, Date.now(), count), signal);
    return { kind: 'created', name, namespace, count };
  }
}

/** What a repeat must match, besides the series key, to raise the series' Event. */
export function identityOf(event: KubeEvent): EventIdentity {
  return {
    type: event.type,
    note: event.note,
    related: event.related && JSON.stringify(event.related),
    annotations: event.annotations && JSON.stringify(event.annotations),
  };
}

export function sameIdentity(a: EventIdentity, b: EventIdentity): boolean {
  return a.type === b.type && a.note === b.note && a.related === b.related && a.annotations === b.annotations;
}

/** Rejects with the signal's reason once it aborts. */
function rejectedOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}
