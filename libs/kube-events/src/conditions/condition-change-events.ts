import { InvalidEventError } from '../errors.js';
import { CONDITION_CHANGE_ACTION } from '../kube-events.constants.js';
import { NOT_DECLARED_CONDITION_EVENTS } from '../kube-events.messages.js';
import type { KubeEvent } from '../kube-events.interfaces.js';
import { declaredAbnormalTrue, type ConditionEvents } from '../catalog/condition-events.js';
import { conditionChangeEvent } from './condition-change-event.js';
import { conditionChanges, type ConditionChangesOptions, type StatusCondition } from './condition-changes.js';

/** How `publishConditionChanges` and `@PublishesConditionChanges` publish the changes of conditions. */
export interface ConditionChangeEventsOptions extends ConditionChangesOptions {
  /**
   * The Events' action: what the controller was doing.
   * @default 'UpdateStatus'
   */
  readonly action?: string;
  /** Labels on the Events, checked as the API server checks labels. */
  readonly labels?: Record<string, string>;
  /**
   * The conditions declared in an Event catalog (`defineEventCatalog`
   * entries with a `condition`): only these conditions' changes are
   * published, each with its entry's action and polarity.
   * @example
   * events: [mirrorEvents.ready]
   */
  readonly events?: readonly ConditionEvents[];
}

/**
 * The Events of the changes between two condition lists: one per changed condition, as {@link conditionChanges} finds them.
 * @throws InvalidEventError when `events` holds what no catalog declared
 */
export function conditionChangeEvents(
  before: readonly StatusCondition[] | null | undefined,
  after: readonly StatusCondition[] | null | undefined,
  options: ConditionChangeEventsOptions = {},
): KubeEvent[] {
  const { events, labels } = options;
  const action = options.action ?? CONDITION_CHANGE_ACTION;
  if (events === undefined)
    return conditionChanges(before, after, options).map((change) => conditionChangeEvent(change, action, labels));
  if (!Array.isArray(events) || !events.every(isConditionEvents))
    throw new InvalidEventError('events', NOT_DECLARED_CONDITION_EVENTS(events));
  const declared = new Map(events.map(({ entry }) => [entry.condition, entry]));
  const abnormalTrue = [...(options.abnormalTrue ?? [])];
  for (const { entry } of events) if (declaredAbnormalTrue(entry)) abnormalTrue.push(entry.condition);
  return conditionChanges(before, after, { abnormalTrue }).flatMap((change) => {
    const entry = declared.get(change.type);
    return entry
      ? [conditionChangeEvent(change, entry.action ?? options.action ?? CONDITION_CHANGE_ACTION, labels)]
      : [];
  });
}

function isConditionEvents(value: unknown): value is ConditionEvents {
  const entry: unknown = (value as { entry?: unknown } | null)?.entry;
  return (
    typeof entry === 'object' && entry !== null && typeof (entry as { condition?: unknown }).condition === 'string'
  );
}
