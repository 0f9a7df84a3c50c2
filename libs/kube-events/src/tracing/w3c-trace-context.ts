import type { SpanContext } from '@opentelemetry/api';

/** W3C Trace Context, version 00: lower-case hex ids, two hex digits of flags. */
const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ALL_ZEROS = /^0+$/;

/** The most list-members and characters a `tracestate` may have (W3C Trace Context, §3.3.1). */
const MAX_TRACESTATE_MEMBERS = 32;
const MAX_TRACESTATE_CHARS = 512;

/**
 * A `tracestate` list-member's key: a simple key, or `<tenant>@<system>`;
 * and its value: printable ASCII but `,` and `=`, not ending in a space.
 */
const MEMBER_KEY = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/;
const MEMBER_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
/** Optional white space around a list-member. */
const OWS = /^[ \t]+|[ \t]+$/g;

/**
 * The `traceparent` of a span context, or `undefined` when its ids or flags
 * are not what W3C Trace Context allows (upper case, all zeros, the wrong
 * length, a flags value beyond a byte): a context an SDK made is always
 * valid, but a custom or propagated one may be anything, and only the W3C
 * form is ever written.
 */
export function w3cTraceparent(
  spanContext: Pick<SpanContext, 'traceId' | 'spanId' | 'traceFlags'>,
): string | undefined {
  const { traceId, spanId, traceFlags } = spanContext;
  if (typeof traceId !== 'string' || !TRACE_ID.test(traceId) || ALL_ZEROS.test(traceId)) return undefined;
  if (typeof spanId !== 'string' || !SPAN_ID.test(spanId) || ALL_ZEROS.test(spanId)) return undefined;
  if (!Number.isInteger(traceFlags) || traceFlags < 0 || traceFlags > 0xff) return undefined;
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

/**
 * `tracestate` in W3C form (members separated by `,` without the optional
 * white space, empty members left out), or `undefined` when there is none
 * or it is not valid: a member that breaks the key or value grammar, a key
 * given twice, more than {@link MAX_TRACESTATE_MEMBERS} members or more
 * than {@link MAX_TRACESTATE_CHARS} characters. An invalid one is left out
 * whole, never cut into something its vendors did not write.
 */
export function w3cTracestate(serialized: unknown): string | undefined {
  if (typeof serialized !== 'string' || serialized.length === 0) return undefined;
  // Optional white space aside, a valid one is no longer; this bounds the work on an oversized one.
  if (serialized.length > MAX_TRACESTATE_CHARS * 2) return undefined;
  const members: string[] = [];
  const keys = new Set<string>();
  for (const part of serialized.split(',')) {
    const member = part.replace(OWS, '');
    if (member === '') continue;
    const equals = member.indexOf('=');
    if (equals < 0) return undefined;
    const key = member.slice(0, equals);
    if (!MEMBER_KEY.test(key) || !MEMBER_VALUE.test(member.slice(equals + 1)) || keys.has(key)) return undefined;
    keys.add(key);
    members.push(member);
  }
  const tracestate = members.join(',');
  if (members.length > MAX_TRACESTATE_MEMBERS || tracestate.length > MAX_TRACESTATE_CHARS) return undefined;
  return tracestate || undefined;
}
