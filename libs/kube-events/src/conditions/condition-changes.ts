import { InvalidEventError } from '../errors.js';
import type { EventType } from '../kube-events.interfaces.js';
import { NOT_CONDITION_TYPES } from '../kube-events.messages.js';
import { abnormalTrueTypes, isBadStatus, isGoodStatus } from './condition-polarity.js';

/**
 * A status condition as `metav1.Condition` has it (and as most custom
 * resources write theirs). Only `type`, `status`, `reason` and `message`
 * are read; entries without a string `type` are passed over.
 */
export interface StatusCondition {
  /** The condition's type, one per list: `Ready`. */
  readonly type: string;
  /** `True`, `False` or `Unknown`. */
  readonly status: string;
  /** Why it has this status, in UpperCamelCase: `SourceMissing`. */
  readonly reason?: string;
  /** The same for a person. */
  readonly message?: string;
  /** Not read: a new time alone is not a change. */
  readonly lastTransitionTime?: string | Date;
  /** Not read: a new generation alone is not a change. */
  readonly observedGeneration?: number;
}

/** What a condition said on one side of a change. */
export interface ConditionState {
  /** `True`, `False` or `Unknown`. */
  readonly status: string;
  /** Its reason, when it had one. */
  readonly reason?: string;
  /** Its message, when it had one. */
  readonly message?: string;
}

/** One condition whose `status` or `reason` changed between two condition lists. */
export interface ConditionChange {
  /** The condition's type. */
  readonly type: string;
  /** What it said before; absent when the condition appeared. */
  readonly before?: ConditionState;
  /** What it says now; absent when the condition was removed. */
  readonly after?: ConditionState;
  /**
   * `Warning` when the condition is now in its bad state (`False`, or `True`
   * for an abnormal-true one) or left its good state (for `Unknown`, or
   * removed); `Normal` when it reached or stays in its good state, or went
   * to `Unknown` (or was removed) from a state that was not good.
   */
  readonly eventType: EventType;
}

/** How {@link conditionChanges} tells good states from bad. */
export interface ConditionChangesOptions {
  /**
   * Condition types that are good when `False`, beside the built-in
   * {@link ABNORMAL_TRUE_CONDITIONS} (`Degraded`, `Stalled`, `Failed`, a Node's pressures).
   * @example
   * abnormalTrue: ['OutOfSync']
   */
  readonly abnormalTrue?: readonly string[];
}

/**
 * The changes between two condition lists, one per condition type whose
 * `status` or `reason` changed, appeared or was removed, in the order of
 * `after` and then of the removed ones in `before`. A change of
 * `lastTransitionTime`, `observedGeneration` or `message` alone, or of the
 * order of the list, is none. Publishes nothing:
 * `EventRecorder.publishConditionChanges` publishes them.
 *
 * @throws InvalidEventError when `abnormalTrue` is not a list of strings
 * @example
 * conditionChanges(before.status?.conditions, after.status?.conditions);
 * // [{ type: 'Ready', before: { status: 'False', … }, after: { status: 'True', … }, eventType: 'Normal' }]
 */
export function conditionChanges(
  before: readonly StatusCondition[] | null | undefined,
  after: readonly StatusCondition[] | null | undefined,
  options: ConditionChangesOptions = {},
): ConditionChange[] {
  const declared: unknown = options.abnormalTrue;
  if (declared !== undefined && !(Array.isArray(declared) && declared.every((type) => typeof type === 'string')))
    throw new InvalidEventError('abnormalTrue', NOT_CONDITION_TYPES(declared));
  const abnormalTrue = abnormalTrueTypes(options.abnormalTrue);
  const earlier = byType(before);
  const later = byType(after);
  const changes: ConditionChange[] = [];
  for (const [type, now] of later) {
    const was = earlier.get(type);
    if (was?.status === now.status && (was.reason ?? '') === (now.reason ?? '')) continue;
    changes.push(changeOf(type, was, now, abnormalTrue));
  }
  for (const [type, was] of earlier) if (!later.has(type)) changes.push(changeOf(type, was, undefined, abnormalTrue));
  return changes;
}

function changeOf(
  type: string,
  before: ConditionState | undefined,
  after: ConditionState | undefined,
  abnormalTrue: ReadonlySet<string>,
): ConditionChange {
  const leftGood =
    before !== undefined &&
    isGoodStatus(type, before.status, abnormalTrue) &&
    !isGoodStatus(type, after?.status, abnormalTrue);
  const bad = after !== undefined && isBadStatus(type, after.status, abnormalTrue);
  return {
    type,
    ...(before && { before }),
    ...(after && { after }),
    eventType: bad || leftGood ? 'Warning' : 'Normal',
  };
}

/** The conditions of a list by type, the first of each type, as states; what is not a condition is passed over. */
function byType(conditions: readonly StatusCondition[] | null | undefined): Map<string, ConditionState> {
  const states = new Map<string, ConditionState>();
  if (!Array.isArray(conditions)) return states;
  for (const condition of conditions as unknown[]) {
    if (typeof condition !== 'object' || condition === null) continue;
    const { type, status, reason, message } = condition as Record<string, unknown>;
    if (typeof type !== 'string' || type === '' || states.has(type)) continue;
    states.set(type, {
      status: typeof status === 'string' ? status : '',
      ...(typeof reason === 'string' && reason !== '' && { reason }),
      ...(typeof message === 'string' && message !== '' && { message }),
    });
  }
  return states;
}
