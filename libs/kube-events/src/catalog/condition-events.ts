import { describeValue } from '../text/describe-value.js';
import { ABNORMAL_TRUE_CONDITIONS, CONDITION_CHANGE_ACTION, MAX_FIELD_LENGTH } from '../kube-events.constants.js';

/**
 * The Events that say a status condition changed, declared once in a
 * catalog: `publishConditionChanges` and `@PublishesConditionChanges`
 * given it publish that condition's changes with its action and polarity,
 * and the catalog's table documents them.
 */
export interface ConditionEventsEntry {
  /** The condition's type, as in `status.conditions`: `Ready`. */
  readonly condition: string;
  /** What the controller was doing, UpperCamelCase, at most 128 characters. @default 'UpdateStatus' */
  readonly action?: string;
  /**
   * `true` for a condition that is good when `False` (an "abnormal-true"
   * one). `Degraded`, `Stalled`, `Failed` and a Node's pressures
   * (`ABNORMAL_TRUE_CONDITIONS`) are so whatever this says.
   * @default false
   */
  readonly abnormalTrue?: boolean;
  /** The reasons the controller writes in the condition, UpperCamelCase, for the catalog's table. */
  readonly reasons?: readonly string[];
  /** When the condition changes, in a person's words, for the catalog's table. */
  readonly when: string;
  /** What a person who reads a Warning of it should do. */
  readonly whatToDo?: string;
}

/** A condition's declared Events, as a catalog holds them: what `publishConditionChanges({ events })` takes. */
export interface ConditionEvents<Entry extends ConditionEventsEntry = ConditionEventsEntry> {
  /** The entry it was declared with. */
  readonly entry: Readonly<Entry>;
}

/** The longest condition type: `metav1.Condition`'s limit. */
const MAX_CONDITION_TYPE = 316;
const UPPER_CAMEL_CASE = /^[A-Z][a-zA-Z0-9]*$/;

/** Whether a catalog entry declares a condition's Events rather than one Event. */
export function isConditionEventsEntry(entry: object): entry is ConditionEventsEntry {
  return 'condition' in entry;
}

/** Whether a condition of `entry` is good when `False`: declared so, or one of the built-in abnormal-true ones. */
export function declaredAbnormalTrue(entry: ConditionEventsEntry): boolean {
  return entry.abnormalTrue === true || ABNORMAL_TRUE_CONDITIONS.includes(entry.condition);
}

/** The problem with a condition entry, or `undefined` when it has none. */
export function conditionEntryProblem(entry: ConditionEventsEntry): string | undefined {
  const { condition, action, abnormalTrue, reasons, when, whatToDo } = entry;
  if (typeof condition !== 'string' || condition === '' || condition.length > MAX_CONDITION_TYPE)
    return `condition must be a condition type of 1 to ${MAX_CONDITION_TYPE} characters, got ${describeValue(condition)}`;
  if (reasons !== undefined && !Array.isArray(reasons)) return 'reasons must be a list of reasons';
  for (const [field, value] of [
    ['action', action] as const,
    ...(reasons ?? []).map((each) => ['reason', each] as const),
  ]) {
    if (field === 'action' && value === undefined) continue;
    if (typeof value !== 'string' || !UPPER_CAMEL_CASE.test(value))
      return `${field} ${describeValue(value)} is not UpperCamelCase (letters and digits, a capital first)`;
    if (value.length > MAX_FIELD_LENGTH) return `${field} is longer than ${MAX_FIELD_LENGTH} characters`;
  }
  if (abnormalTrue !== undefined && typeof abnormalTrue !== 'boolean') return 'abnormalTrue must be a boolean';
  if (typeof when !== 'string' || when.trim() === '') return 'when must say when the condition changes';
  if (whatToDo !== undefined && typeof whatToDo !== 'string') return 'whatToDo must be a string';
  return undefined;
}

/** The cells of a condition entry's row in the catalog's table: reason, type, action. */
export function conditionEventsCells(entry: ConditionEventsEntry): [string, string, string] {
  const condition = `\`${entry.condition}\``;
  const [good, bad] = declaredAbnormalTrue(entry) ? ['False', 'True'] : ['True', 'False'];
  const reasons = (entry.reasons ?? []).map((reason) => `\`${reason}\``).join(', ');
  return [
    `${reasons ? `${reasons}: ` : ''}the reason of condition ${condition}`,
    `Normal when ${condition} turns ${good}, Warning when it turns ${bad} or leaves ${good}`,
    `\`${entry.action ?? CONDITION_CHANGE_ACTION}\``,
  ];
}
