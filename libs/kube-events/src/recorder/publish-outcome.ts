import type { KubernetesObject } from '@kubernetes/client-node';
import type { PublishError } from '../errors.js';
import type { KubeEvent, Reporter } from '../kube-events.interfaces.js';

/**
 * What became of a publish:
 * - `created`: a new Event was written;
 * - `patched`: the series' Event was raised to `count`;
 * - `coalesced`: the occurrence was counted locally and folded into the series' next write;
 * - `failed`: the write was refused or timed out (`error` says why), or the event was invalid;
 * - `dropped`: `count` occurrences were given up: no room was left for folded occurrences,
 *   or their write kept failing.
 */
export type PublishOutcomeKind = 'created' | 'patched' | 'coalesced' | 'failed' | 'dropped';

/** One outcome on a recorder's `outcomes$` stream, which sinks and metrics read. */
export interface PublishOutcome {
  readonly kind: PublishOutcomeKind;
  readonly reporter: Readonly<Required<Reporter>>;
  /** The object the Event is about. */
  readonly regarding: Readonly<Pick<NonNullable<KubernetesObject['metadata']>, 'name' | 'namespace' | 'uid'>> & {
    readonly apiVersion?: string;
    readonly kind?: string;
  };
  /** The event as written (note truncated). */
  readonly event: KubeEvent;
  /** Whether `@PublishesFailures` published it. */
  readonly failure: boolean;
  /**
   * created/patched: the series count now on the server; coalesced: the
   * occurrences waiting to be written; dropped: the occurrences given up;
   * failed: the occurrences the failed write carried.
   */
  readonly count: number;
  /** The Event written to, when one was. */
  readonly eventName?: string;
  readonly namespace?: string;
  readonly error?: PublishError;
  /** Milliseconds from the publish (for folded occurrences, the first of them) to the server's answer. */
  readonly durationMs: number;
}
