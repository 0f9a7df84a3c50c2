import { MAX_FIELD_LENGTH } from '../kube-events.constants.js';
import type { KubeEvent } from '../kube-events.interfaces.js';
import type { ConditionChange, ConditionState } from './condition-changes.js';
import { upperCamelCase } from './upper-camel-case.js';

/** The longest condition type a note quotes: `metav1.Condition`'s limit. */
const MAX_TYPE_CHARS = 316;
/** The longest condition message a note is built from: `metav1.Condition`'s limit; the note is cut to `MAX_NOTE_BYTES` after redaction. */
const MAX_MESSAGE_CHARS = 32_768;
const UPPER_CAMEL_CASE_START = /^[A-Z]/;

/**
 * The Event that says a condition changed: of the change's type (Normal or
 * Warning), with the condition's reason, and a note that names the
 * condition and the change and carries its message, so that
 * `kubectl describe` reads `Ready False → True: copied 3 keys`. Nothing in
 * it changes between two identical changes, so that repeats fold into one
 * Event's series.
 */
export function conditionChangeEvent(
  change: ConditionChange,
  action: string,
  labels?: Record<string, string>,
): KubeEvent {
  return {
    type: change.eventType,
    reason: conditionChangeReason(change),
    action,
    note: conditionChangeNote(change),
    ...(labels && { labels }),
  };
}

/**
 * The Event's reason: the condition's, made UpperCamelCase (as the Event
 * style guide asks) and cut to 128 characters; the condition type and its
 * new status (`ReadyTrue`, `ReadyRemoved`) when it has none that can be.
 */
export function conditionChangeReason({ type, after }: ConditionChange): string {
  const given = upperCamelCase(after?.reason ?? '');
  if (UPPER_CAMEL_CASE_START.test(given)) return given.slice(0, MAX_FIELD_LENGTH);
  const name = upperCamelCase(type.slice(type.lastIndexOf('/') + 1));
  const status = after ? upperCamelCase(after.status) || 'Unknown' : 'Removed';
  const reason = UPPER_CAMEL_CASE_START.test(name) ? name + status : `Condition${name}${status}`;
  return reason.slice(0, MAX_FIELD_LENGTH);
}

/**
 * The Event's note: `Ready False → True: copied 3 keys`; `Ready → Unknown`
 * for a condition that appeared, `Ready True → removed` for one removed,
 * `Ready stays False, reason SourceMissing → TargetTaken: …` for a new
 * reason alone. The recorder redacts it and cuts it to `MAX_NOTE_BYTES`.
 */
export function conditionChangeNote({ type, before, after }: ConditionChange): string {
  const name = type.slice(0, MAX_TYPE_CHARS);
  if (!after) return `${name} ${statusOf(before)} → removed`;
  const change =
    before?.status === after.status
      ? `${name} stays ${statusOf(after)}, reason ${reasonOf(before)} → ${reasonOf(after)}`
      : `${name} ${before ? `${statusOf(before)} ` : ''}→ ${statusOf(after)}`;
  return after.message ? `${change}: ${after.message.slice(0, MAX_MESSAGE_CHARS)}` : change;
}

function statusOf(state: ConditionState | undefined): string {
  return state?.status ? state.status.slice(0, MAX_FIELD_LENGTH) : '(no status)';
}

function reasonOf(state: ConditionState): string {
  return state.reason ? state.reason.slice(0, MAX_FIELD_LENGTH) : '(none)';
}
