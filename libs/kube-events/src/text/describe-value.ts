import { printable } from './printable-text.js';
import { redactCredentials, redactionWindow } from './credential-redaction.js';

/** How much more than it shows a quote or an excerpt redacts. */
const REDACTION_MARGIN = 1024;
/** How much of an error's text a message or a log line reads: a stack of a few dozen frames. */
const MAX_ERROR_CHARS = 8192;

/**
 * Text from the caller, cut to `max` characters for a message, with
 * credentials redacted and what a terminal would act on escaped.
 */
export function excerpt(text: string, max = 256): string {
  const shown = redactedStart(text, max);
  return printable(text.length > max ? `${shown}… (${text.length} characters)` : shown);
}

/** How many characters of a caller's string a message quotes. */
export const QUOTED_INPUT_MAX = 80;

/**
 * A caller's string as a message quotes it: its first
 * {@link QUOTED_INPUT_MAX} characters only, with its length when cut (a
 * 2 MB key or name makes a message of a line, not of megabytes),
 * credentials redacted (a label value may be a token), JSON-quoted, and
 * what JSON leaves as it is (DEL, C1 controls, the marks that reorder
 * text) escaped as log lines escape it.
 */
export function quotedInput(text: string): string {
  const quoted = printable(JSON.stringify(redactedStart(text, QUOTED_INPUT_MAX)));
  return text.length > QUOTED_INPUT_MAX ? `${quoted}… (${text.length} characters)` : quoted;
}

/** `value` as a single-quoted JavaScript string, for a message that shows code to write. */
export function quoted(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * A short description of any value for a validation message; never throws,
 * whatever it is given (BigInt, symbol, circular object).
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return quotedInput(value);
    case 'bigint':
      return `${value}n (a BigInt)`;
    case 'symbol':
      return `${String(value)} (a symbol)`;
    case 'function':
      return 'a function';
    case 'undefined':
      return 'undefined';
    case 'object': {
      if (value === null) return 'null';
      try {
        if (Array.isArray(value)) return 'an array';
        const constructor = (Object.getPrototypeOf(value) as { constructor?: unknown } | null)?.constructor;
        const name = typeof constructor === 'function' && constructor !== Object ? constructor.name : '';
        return name ? `an instance of ${name}` : 'an object';
      } catch {
        // A revoked Proxy throws from both.
        return 'an object that cannot be read';
      }
    }
    default:
      return `${String(value)} (a ${typeof value})`;
  }
}

/**
 * An error's message, or any other thrown value as `String()` gives it,
 * for a message that reports it: bounded, credentials redacted, and what
 * a terminal would act on escaped.
 */
export function errorMessage(error: unknown): string {
  return loggableText(safeString(error instanceof Error ? error.message : error));
}

/** An error's stack (its message and frames), or what {@link errorMessage} says of another value, for a log line. */
export function errorStack(error: unknown): string {
  if (!(error instanceof Error)) return errorMessage(error);
  let stack: unknown;
  try {
    stack = error.stack;
  } catch {
    // A getter that throws leaves the message.
  }
  return typeof stack === 'string' && stack ? loggableText(stack) : errorMessage(error);
}

/** Text from outside for a message or a log line: its start, redacted, then escaped so that it stays one line. */
export function loggableText(text: string): string {
  return excerpt(text, MAX_ERROR_CHARS);
}

/**
 * The first `max` characters of `text` once redacted: a window longer by
 * {@link REDACTION_MARGIN} is redacted first, so that a credential the cut
 * goes through is still recognised whole.
 */
function redactedStart(text: string, max: number): string {
  return redactCredentials(redactionWindow(text, max + REDACTION_MARGIN)).slice(0, max);
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return 'a value that cannot be read';
  }
}
