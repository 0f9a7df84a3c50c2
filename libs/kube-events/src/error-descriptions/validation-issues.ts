import { readField } from './read-field.js';

/** How many issues are described; the rest are counted. */
const MAX_ISSUES = 5;
/** The longest issue message kept, in characters. */
const MAX_ISSUE_CHARS = 100;

/**
 * The issues of a schema validator's error (zod's `ZodError`, and any
 * error with an `issues` list of `{ path, message }`), each as its path
 * and message: `name: Required; spec.containers[0].image: Expected
 * string, received number`; `undefined` for anything else. The message
 * such an error has is its issues as JSON, which says the first path only
 * once it is cut.
 */
export function validationIssues(error: object): string | undefined {
  const issues = readField(error, 'issues');
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const described: string[] = [];
  for (const issue of issues.slice(0, MAX_ISSUES)) {
    const message = readField(issue, 'message');
    const path = readField(issue, 'path');
    if (typeof message !== 'string' || !Array.isArray(path)) return undefined;
    const words = message.length > MAX_ISSUE_CHARS ? `${message.slice(0, MAX_ISSUE_CHARS)}…` : message;
    described.push(`${pathText(path)}: ${words}`);
  }
  const more = issues.length - described.length;
  return more > 0 ? `${described.join('; ')} (and ${more} more)` : described.join('; ');
}

/** `spec.containers[0].image` for `['spec', 'containers', 0, 'image']`; `(root)` for an empty path. */
function pathText(path: readonly unknown[]): string {
  let text = '';
  for (const step of path.slice(0, 16)) {
    const key = typeof step === 'object' && step !== null ? readField(step, 'key') : step;
    if (typeof key === 'number') text += `[${key}]`;
    else
      text += `${text ? '.' : ''}${typeof key === 'string' ? key.slice(0, 64) : typeof key === 'symbol' ? key.toString() : '?'}`;
  }
  return text || '(root)';
}
