import { ABNORMAL_TRUE_CONDITIONS } from '../kube-events.constants.js';
/** The condition types good when `False`: the built-in ones and those a caller declares. */
export function abnormalTrueTypes(declared: Iterable<string> = []): ReadonlySet<string> {
  return new Set([...ABNORMAL_TRUE_CONDITIONS, ...declared]);
}

/** Whether a condition of `type` is in its good state with `status`; `Unknown` is never good. */
export function isGoodStatus(type: string, status: string | undefined, abnormalTrue: ReadonlySet<string>): boolean {
  return status === (abnormalTrue.has(type) ? 'False' : 'True');
}

/** Whether a condition of `type` is in its bad state with `status`: the opposite of good, not `Unknown`. */
export function isBadStatus(type: string, status: string | undefined, abnormalTrue: ReadonlySet<string>): boolean {
  return status === (abnormalTrue.has(type) ? 'True' : 'False');
}
