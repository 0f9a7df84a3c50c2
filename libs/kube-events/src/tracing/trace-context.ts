import type { SpanContext } from '@opentelemetry/api';
import type { OpenTelemetryApi } from './opentelemetry-api.js';

/** The W3C trace context of the span a publish ran in. */
export interface TraceContext {
  /** `00-<trace id>-<span id>-<flags>`, as the W3C `traceparent` header. */
  readonly traceparent: string;
  /** The vendors' `tracestate`, when the span has one. */
  readonly tracestate?: string;
  /** The span itself, which the write's span is a child of. */
  readonly spanContext: SpanContext;
}

/** The annotation keys trace context is written under. */
export interface TraceAnnotationKeys {
  readonly traceparent: string;
  readonly tracestate: string;
}

/** The context of the active span, or `undefined` when none is active (or its context is invalid). */
export function activeTraceContext(api: OpenTelemetryApi): TraceContext | undefined {
  const spanContext = api.trace.getActiveSpan()?.spanContext();
  if (!spanContext || !api.isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const tracestate = spanContext.traceState?.serialize();
  return {
    traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`,
    tracestate: tracestate || undefined,
    spanContext,
  };
}

/** A created Event's annotations: the caller's, plus the trace context of its latest occurrence. */
export function annotationsForCreate(
  annotations: Record<string, string> | undefined,
  trace: TraceContext | undefined,
  keys: TraceAnnotationKeys,
): Record<string, string> | undefined {
  if (!trace) return annotations;
  const traced = { ...annotations, [keys.traceparent]: trace.traceparent };
  if (trace.tracestate) traced[keys.tracestate] = trace.tracestate;
  return traced;
}

/**
 * The annotations a series patch sets: the trace context of its latest
 * occurrence, which replaces the previous one whole (`null` removes a
 * tracestate the new trace does not have: JSON merge patch). None when it
 * ran in no span: the Event keeps naming the latest trace that raised it,
 * and a patch without a span is the same as without OpenTelemetry.
 */
export function annotationsForPatch(
  trace: TraceContext | undefined,
  keys: TraceAnnotationKeys,
): Record<string, string | null> | undefined {
  if (!trace) return undefined;
  return { [keys.traceparent]: trace.traceparent, [keys.tracestate]: trace.tracestate ?? null };
}

/** `annotations` without the trace context keys: what a resumed series compares. */
export function withoutTraceAnnotations(
  annotations: Record<string, string> | undefined,
  keys: TraceAnnotationKeys,
): Record<string, string> | undefined {
  if (!annotations || (!(keys.traceparent in annotations) && !(keys.tracestate in annotations))) return annotations;
  const { [keys.traceparent]: _traceparent, [keys.tracestate]: _tracestate, ...rest } = annotations;
  return rest;
}
