import type { KubernetesObject } from '@kubernetes/client-node';
import { eventNamespace } from '../../api/event-body.js';
import { eventName, sharedSeriesEventName } from '../../event-rules/event-name.js';
import type { ListedEvent, StoredEventState } from '../../api/events-api.js';
import { SERIES_ENDED_ANNOTATION } from '../../kube-events.constants.js';
import type { ClusterScopedEventNamespace } from '../../kube-events.interfaces.js';
import type { EndedEvents, Batch, CreatePlan, Series, SeriesEvent, FindPlan, WritePlan } from '../series/index.js';
import { identityDigest } from '../publish/index.js';
import { hasRoom, whyNotOwn, type NotOwnBecause } from './series-ownership.js';

/**
 * How many names in a row a batch derives from its series after passing
 * over Events it may not continue, before it takes a name nobody can tell
 * in advance (client-go's form): enough for replicas to meet past an
 * Event left in their way, few enough that someone creating each derived
 * name first does not hold a series off the server.
 */
const MAX_DERIVED_NAMES = 2;

/** What a {@link WritePlanner} needs: the series window, the names, and its clock. */
export interface WritePlannerOptions {
  /** How long repeats fold into one series, from its last write (ms). */
  readonly window: number;
  /** Names Events about objects without a name. */
  readonly controller: string;
  /** Where Events about cluster-scoped objects go. @default 'default' */
  readonly clusterScopedNamespace?: ClusterScopedEventNamespace;
  /** The Events whose series this process ended, which no series continues. */
  readonly ended: EndedEvents;
  /** The wall clock that Event times and names read (epoch ms). @default Date.now */
  readonly wallClock?: () => number;
  /** Names a new Event. @default eventName */
  readonly namer?: (objectName: string | undefined, controller: string, at: number) => string;
  /**
   * Replicas share series (`resumeSeries`): a series' first Event is named from the series, so that
   * replicas starting it at once meet on one name (see {@link sharedSeriesEventName}).
   * @default false
   */
  readonly sharedSeries?: boolean;
}

/** A write as planned, with what the batch's attempts record of it. */
export interface PlannedWrite {
  readonly plan: WritePlan;
  /** The count the plan builds on: 0 for a create, the Event's count for a patch. */
  readonly base: number;
  /** The create reuses the name of a create of the series given up in doubt. */
  readonly reusesInDoubtName: boolean;
}

/**
 * Decides which write a batch goes out as: a patch of its series' Event
 * when it repeats it within the window, else a create under a name chosen
 * now; and whether a series continues the Event a previous process left.
 * Its clock and its namer are given, so that what it decides depends on
 * nothing else.
 */
export class WritePlanner {
  private readonly wallClock: () => number;
  private readonly namer: (objectName: string | undefined, controller: string, at: number) => string;

  constructor(private readonly options: WritePlannerOptions) {
    // Read at each call, not captured: a test that moves the wall clock (a fake `Date`) moves Event times too.
    this.wallClock = options.wallClock ?? (() => Date.now());
    this.namer = options.namer ?? eventName;
  }

  /**
   * The write a batch goes out as, from what its series last wrote: a patch
   * of the series' Event when the batch repeats it within the window, else
   * a create (under the name of a create given up in doubt, when it repeats
   * that one), or first the lookup of an Event to resume. What the write
   * on its way saw of the series (the batch's `attempts`) comes before what
   * the series holds. Changes nothing: `WriteLedger` records what it returns.
   */
  plan(series: Series, batch: Batch, now: number): PlannedWrite {
    const { resource, event } = batch.first;
    const { seen, lookedUp, passedOverInDoubt } = batch.attempts;
    const pending = batch.occurrences - batch.attempts.landed;
    const last = seen ? seen.event : series.event;
    if (series.lookupPending && !lookedUp && !last) {
      const uid = resource.metadata!.uid!;
      const find: FindPlan = {
        kind: 'find',
        namespace: this.namespaceOf(resource),
        uid,
        reason: event.reason,
        action: event.action,
      };
      return { plan: find, base: batch.attempts.base, reusesInDoubtName: batch.attempts.reusesInDoubtName };
    }
    // An Event whose count would pass the server's int32 takes no more: the occurrences start an Event of their own.
    if (last?.identity === batch.identity && this.isCurrent(last, now) && hasRoom(last.count, pending)) {
      const { namespace, name, resourceVersion, count: base, writes } = last;
      return {
        plan: { kind: 'patch', namespace, name, resourceVersion, count: base + pending, writes },
        base,
        reusesInDoubtName: false,
      };
    }
    const doubt = series.inDoubt !== passedOverInDoubt ? series.inDoubt : undefined;
    if (doubt?.identity === batch.identity && now - doubt.at <= this.options.window) {
      const { namespace, name, eventTime } = doubt;
      return { plan: { kind: 'create', namespace, name, eventTime, count: pending }, base: 0, reusesInDoubtName: true };
    }
    const at = this.wallClock();
    const namespace = this.namespaceOf(resource);
    const uid = resource.metadata?.uid;
    const name =
      this.options.sharedSeries && uid
        ? sharedSeriesEventName(resource.metadata?.name, this.options.controller, this.seriesKey(batch, namespace))
        : this.freshName(resource, at);
    return {
      plan: { kind: 'create', namespace, name, eventTime: at, count: pending },
      base: 0,
      reusesInDoubtName: false,
    };
  }

  /**
   * Whether the Event found under a series' shared name takes no more repeats: its series was ended, or it
   * counted nothing within the window (an earlier series of the same event, which a new one does not continue).
   */
  takesNoRepeats(state: StoredEventState): boolean {
    if (state.ended === true || this.options.ended.has(state.namespace, state.name)) return true;
    return state.lastObservedAt !== undefined && this.wallClock() - state.lastObservedAt > this.options.window;
  }

  /** A name no other series' Event has, and nobody can tell in advance (client-go's form). */
  private freshName(resource: KubernetesObject, at = this.wallClock()): string {
    return this.namer(resource.metadata?.name, this.options.controller, at);
  }

  /**
   * Why the Event `state`, met under a name a batch's series writes to or
   * listed for it, is not one the series may continue with the batch's
   * occurrences: not provably its own (see {@link whyNotOwn}; this
   * recorder marks its writes when replicas share series), or its count has
   * no room for them. `undefined` when it may.
   */
  whyNotContinue(state: StoredEventState, batch: Batch): NotOwnBecause | undefined {
    const notOwn = whyNotOwn(state, batch.first, this.options.controller, this.options.sharedSeries ?? false);
    if (notOwn) return notOwn;
    return hasRoom(state.count, batch.occurrences - batch.attempts.landed) ? undefined : 'its count has no room left';
  }

  /**
   * The create of a batch whose series met, under `taken`, an Event it may
   * not continue: the batch's occurrences not on the server yet, under the
   * name {@link nameAfter} gives.
   */
  createAfter(batch: Batch, taken: { readonly namespace: string; readonly name: string }): CreatePlan {
    return {
      kind: 'create',
      namespace: taken.namespace,
      name: this.nameAfter(batch, taken),
      eventTime: this.wallClock(),
      count: batch.occurrences - batch.attempts.landed,
    };
  }

  /**
   * The name a batch's series takes after passing over the Event under
   * `taken` (not its own, full, or of an ended series). Replicas sharing
   * series derive it from the series and the name passed over, so that
   * those meeting the same Event meet again on the next name, and none
   * collides with what is under the one passed over; past
   * {@link MAX_DERIVED_NAMES} names in a row (someone creating each name as
   * it is derived), it is a name nobody can tell in advance.
   */
  nameAfter(batch: Batch, taken: { readonly namespace: string; readonly name: string }): string {
    const { resource } = batch.first;
    if (!this.options.sharedSeries || !resource.metadata?.uid || batch.attempts.passedOver >= MAX_DERIVED_NAMES)
      return this.freshName(resource);
    const key = [this.seriesKey(batch, taken.namespace), taken.name].join('\0');
    return sharedSeriesEventName(resource.metadata.name, this.options.controller, key);
  }

  /** What makes a batch's series, as its shared names are derived from it. */
  private seriesKey(batch: Batch, namespace: string): string {
    const { resource, event } = batch.first;
    return [
      this.options.controller,
      namespace,
      resource.metadata?.uid,
      event.reason,
      event.action,
      batch.identity,
    ].join('\0');
  }

  private namespaceOf(resource: KubernetesObject): string {
    return eventNamespace(resource, this.options.clusterScopedNamespace);
  }

  /** Whether a series may continue the Event a previous process left: the same event, not ended, within the window. */
  continues(latest: ListedEvent, batch: Batch): boolean {
    const { event } = latest;
    const annotations = event.metadata?.annotations;
    if (annotations?.[SERIES_ENDED_ANNOTATION] !== undefined) return false;
    // Ended by this process, its annotation maybe not on the server yet.
    if (this.options.ended.has(latest.namespace, latest.name)) return false;
    if (this.wallClock() - latest.lastObservedAt > this.options.window) return false;
    const identity = identityDigest({
      type: event.type as 'Normal' | 'Warning',
      reason: '',
      action: '',
      note: event.note,
      related: event.related,
      annotations,
      labels: event.metadata?.labels,
    });
    return identity === batch.identity;
  }

  /** The series' Event as a previous process left it, last written as long ago as its last occurrence was seen. */
  resumed(latest: ListedEvent, batch: Batch, now: number): SeriesEvent {
    const age = Math.max(0, this.wallClock() - latest.lastObservedAt);
    return {
      name: latest.name,
      namespace: latest.namespace,
      identity: batch.identity,
      count: latest.count,
      resourceVersion: latest.resourceVersion,
      writes: latest.writes,
      publishedAt: now - age,
    };
  }

  /** Whether an Event last written at its `publishedAt` still takes repeats at `now`. */
  isCurrent(event: SeriesEvent, now: number): boolean {
    return now - event.publishedAt <= this.options.window;
  }
}

/** The count a batch's write sets: what the Event held when planned, plus what of the batch is not on it yet. */
export function countOf(batch: Batch): number {
  return batch.attempts.base + batch.occurrences - batch.attempts.landed;
}

/** The plan with its count set to `count`: the same object when it already is, so that a retry sends the same write. */
export function withCount(plan: WritePlan, count: number): WritePlan {
  if (plan.kind === 'find' || plan.count === count) return plan;
  return { ...plan, count };
}
