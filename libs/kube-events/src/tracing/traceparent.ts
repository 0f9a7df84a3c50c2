import type { SpanContext } from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span context a W3C `traceparent` (and `tracestate`) names, or `undefined` when it is not one. */
export function parseTraceparent(
  traceparent: string,
  createTraceState?: (tracestate: string) => SpanContext['traceState'],
  tracestate?: string,
): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  return {
    traceId: match[1],
    spanId: match[2],
    traceFlags: parseInt(match[3], 16),
    traceState: tracestate && createTraceState ? createTraceState(tracestate) : undefined,
    isRemote: true,
  };
}
