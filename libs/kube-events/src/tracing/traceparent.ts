import type { SpanContext } from '@opentelemetry/api';
import { w3cTraceparent } from './w3c-trace-context.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span context a W3C `traceparent` (and `tracestate`) names, or `undefined` when it is not one. */
export function parseTraceparent(
  traceparent: string,
  createTraceState?: (tracestate: string) => SpanContext['traceState'],
  tracestate?: string,
): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const ids = { traceId: match[1], spanId: match[2], traceFlags: parseInt(match[3], 16) };
  // All-zero ids match the pattern but name no trace.
  if (!w3cTraceparent(ids)) return undefined;
  return {
    ...ids,
    traceState: tracestate && createTraceState ? createTraceState(tracestate) : undefined,
    isRemote: true,
  };
}
