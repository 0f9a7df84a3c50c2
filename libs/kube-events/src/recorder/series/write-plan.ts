import type { EventCreation } from '../../api/event-body.js';
import type { ListedEvent, StoredEventState as StoredEvent } from '../../api/events-api.js';
import type { PublishApiError } from '../../errors.js';

/**
 * One request of a series: a write (create, patch) or, before its first
 * write, the lookup of an Event to resume. Fixed when first sent so that a
 * retry sends the same request: a create keeps its client-chosen name (a
 * second attempt of a create that landed answers 409 AlreadyExists), a patch
 * its precondition.
 */
export type WritePlan = CreatePlan | PatchPlan | FindPlan;

/** Create an Event carrying `count` occurrences, under a name chosen before its first attempt. */
export interface CreatePlan extends EventCreation {
  readonly kind: 'create';
}

/** Raise the series of an existing Event to `count`, if it is still at `resourceVersion`. */
export interface PatchPlan {
  readonly kind: 'patch';
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion?: string;
  readonly count: number;
  /** The write marks the Event held at `resourceVersion`, which this patch's mark goes in front of. */
  readonly writes?: readonly string[];
}

/**
 * The lookup, which changes nothing on the server: look for the Event a
 * previous process left for this series (`resumeSeries`), before the
 * series' first write. An attempt counts it among its requests.
 */
export interface FindPlan {
  readonly kind: 'find';
  readonly namespace: string;
  readonly uid: string;
  readonly reason: string;
  readonly action: string;
}

/** What the server holds after a write, and how it got there. */
export type WriteResult =
  /** The write was applied. */
  | { readonly kind: 'created' | 'patched'; readonly state: StoredEvent }
  /** The create's name exists: an earlier attempt of this create landed. */
  | { readonly kind: 'exists'; readonly state: StoredEvent }
  /** The patch's precondition failed: the Event changed since it was last seen; this is it now. */
  | { readonly kind: 'conflict'; readonly state: StoredEvent }
  /** The patched Event is gone (the server deletes Events an `--event-ttl` after their last update), or a create refused as existing found nothing to read. */
  | { readonly kind: 'gone' }
  /** What a find saw: the latest Event for the series, if any; none when the server refused the lookup (`refused`). */
  | { readonly kind: 'found'; readonly latest: ListedEvent | undefined; readonly refused?: PublishApiError };

export type { StoredEvent };
