import { printable } from './printable-text.js';

/** Text from the caller, cut to `max` characters for a message, with what a terminal would act on escaped. */
export function excerpt(text: string, max = 256): string {
  return printable(text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text);
}

/** How many characters of a caller's string a message quotes. */
export const QUOTED_INPUT_MAX = 80;

/**
 * A caller's string as a message quotes it: JSON-quoted (so control
 * characters and line breaks are escaped), its first
 * {@link QUOTED_INPUT_MAX} characters only, with its length when cut, so
 * that a 2 MB key or name makes a message of a line, not of megabytes.
 */
export function quotedInput(text: string): string {
  return text.length > QUOTED_INPUT_MAX
    ? `${JSON.stringify(text.slice(0, QUOTED_INPUT_MAX))}… (${text.length} characters)`
    : JSON.stringify(text);
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

/** An error's message, or any other thrown value as `String()` gives it, for a message that reports it, with what a terminal would act on escaped. */
export function errorMessage(error: unknown): string {
  return printable(error instanceof Error ? error.message : String(error));
}
