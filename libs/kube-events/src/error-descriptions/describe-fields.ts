import { quoted } from '../text/describe-value.js';
import { readField } from './read-field.js';

/** How many fields, entries or items of one object are described; the rest are counted. */
const MAX_FIELDS = 8;
/** How many of an object's fields are read, to count the transport fields among them. */
const MAX_READ = 64;
/** How deep nested objects are described. */
const MAX_DEPTH = 2;
/** The longest string value shown, in characters. */
const MAX_STRING_CHARS = 200;
const REDACTED = '[redacted]';

/**
 * Fields that carry a request or a connection, not what went wrong:
 * headers in any form (an object, undici's `rawHeaders` list, fetch-style
 * pairs), a client's `config`, `request` and `options` (axios and got keep
 * the request's headers and credentials there), and sockets. They are left
 * out: what they hold differs from one request to the next, so a note that
 * showed them would not fold, and they are where credentials ride.
 */
const TRANSPORT_FIELDS = new Set([
  'headers',
  'rawheaders',
  'config',
  'request',
  'options',
  'response',
  'agent',
  'socket',
  'connection',
  'dispatcher',
]);

/**
 * A field or header whose value is a credential, whatever the value looks
 * like (`x-api-key`, `authorization`, `client_secret`), in any naming
 * style: any key (`appKey`, `Ocp-Apim-Subscription-Key`; not `key` alone),
 * a `pw` (`bindPW`), a session id.
 */
const CREDENTIAL_KEY =
  /auth|token|secret|passw|passphrase|pwd|pw$|credential|cookie|session[-_]?id|[a-z0-9_-]key$|private[-_]?key|signature/i;

/**
 * What a thrown value that is neither an Error nor has a message holds,
 * on one line, found by its shape rather than printed whole: plain fields
 * as `{ phase: 'Pending', retries: 3 }`, a `Map`'s entries and an array of
 * `[name, value]` pairs by their names (`Map(1) { 'x-api-key': [redacted] }`), nested objects two levels deep, a
 * class instance by its name. The value of a field named for a credential
 * is `[redacted]`; transport fields ({@link TRANSPORT_FIELDS}) are left
 * out. Never throws: a field that cannot be read is left out.
 */
export function describeFields(value: object): string {
  return describeValue(value, 0, new Set());
}

/** A number, boolean, BigInt, `undefined` or symbol as text; `undefined` for any other value. */
export function scalarText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return String(value);
    case 'symbol':
      return value.toString();
  }
  return undefined;
}

function describeValue(value: unknown, depth: number, seen: Set<object>): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'function') return '[function]';
  const scalar = scalarText(value);
  if (scalar !== undefined) return scalar;
  if (value === null) return 'null';
  const object = value as object;
  if (seen.has(object)) return '[circular]';
  if (depth > MAX_DEPTH) return '{…}';
  seen.add(object);
  try {
    if (object instanceof Map) return `Map(${object.size}) ${entries(firstEntries(object), depth, seen, object.size)}`;
    if (Array.isArray(object)) return describeArray(object, depth, seen);
    const name = constructorName(object);
    if (name && name !== 'Object') return `[${name}]`;
    const keys = Object.keys(object);
    const pairs = keys.slice(0, MAX_READ).map((key): [unknown, unknown] => [key, readField(object, key)]);
    return entries(pairs, depth, seen, keys.length);
  } catch {
    return '[unreadable]';
  }
}

/** An array of `[name, value]` pairs (fetch's header lists) as named entries, any other array item by item. */
function describeArray(items: readonly unknown[], depth: number, seen: Set<object>): string {
  const read = items.slice(0, MAX_READ);
  if (read.length && read.every((item) => Array.isArray(item) && item.length === 2 && typeof item[0] === 'string')) {
    return entries(read as [unknown, unknown][], depth, seen, items.length);
  }
  const shown = items.slice(0, MAX_FIELDS).map((item) => describeValue(item, depth + 1, seen));
  const more = items.length - shown.length;
  return `[ ${shown.join(', ')}${more > 0 ? `, … ${more} more` : ''} ]`;
}

function firstEntries(map: Map<unknown, unknown>): [unknown, unknown][] {
  const pairs: [unknown, unknown][] = [];
  for (const pair of map) {
    if (pairs.length === MAX_READ) break;
    pairs.push(pair);
  }
  return pairs;
}

/** `{ name: value, … }`, transport fields left out, credentials' values redacted, the first {@link MAX_FIELDS} shown and the others counted. */
function entries(pairs: readonly [unknown, unknown][], depth: number, seen: Set<object>, total: number): string {
  const texts: string[] = [];
  let more = total - pairs.length;
  for (const [key, value] of pairs) {
    const name = typeof key === 'string' ? key : describeValue(key, depth + 1, seen);
    // A name longer than any code writes is read no further: shown cut, its value redacted.
    const unread = name.length > MAX_STRING_CHARS;
    if (!unread && TRANSPORT_FIELDS.has(name.toLowerCase())) continue;
    if (texts.length === MAX_FIELDS) {
      more++;
      continue;
    }
    const shown = unread || CREDENTIAL_KEY.test(name) ? REDACTED : describeValue(value, depth + 1, seen);
    texts.push(`${fieldName(name)}: ${shown}`);
  }
  if (!texts.length) return more > 0 ? `{ … ${more} more }` : '{}';
  return `{ ${texts.join(', ')}${more > 0 ? `, … ${more} more` : ''} }`;
}

/** A field's name as code writes it: bare when it is an identifier, else quoted (and cut, as a value is). */
function fieldName(key: string): string {
  return key.length <= MAX_STRING_CHARS && /^[A-Za-z_$][\w$]*$/.test(key) ? key : quote(key);
}

function quote(text: string): string {
  return quoted(text.length > MAX_STRING_CHARS ? `${text.slice(0, MAX_STRING_CHARS)}…` : text);
}

function constructorName(object: object): string | undefined {
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype === null) return undefined;
  const constructor = readField(prototype, 'constructor');
  return typeof constructor === 'function' ? constructor.name : undefined;
}
