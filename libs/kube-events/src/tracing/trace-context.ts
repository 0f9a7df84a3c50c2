import { annotationsFit } from '../event-rules/annotation-bytes.js';
import { w3cTraceparent, w3cTracestate } from './w3c-trace-context.js';

/**
 * OpenTelemetry's `SpanContext` as far as the library reads it and hands it
 * back, declared here: the library's types reach every consumer, and
 * `@opentelemetry/api` is an optional peer one may not have.
 */
interface SpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote?: boolean;
  readonly traceState?: TraceState;
}

/** OpenTelemetry's `TraceState`, for the same reason. */
interface TraceState {
  set(key: string, value: string): TraceState;
  unset(key: string): TraceState;
  get(key: string): string | undefined;
  serialize(): string;
}

/** The part of the OpenTelemetry API that finds the active span. */
interface ActiveSpanApi {
  readonly trace: { getActiveSpan(): { spanContext(): SpanContext } | undefined };
}

/** The W3C trace context of the span a publish ran in, in valid W3C form. */
export interface TraceContext {
  /** `00-<trace id>-<span id>-<flags>`, as the W3C `traceparent` header. */
  readonly traceparent: string;
  /** The vendors' `tracestate`, when the span has a valid one. */
  readonly tracestate?: string;
  /** The span itself, which the write's span is a child of. */
  readonly spanContext: SpanContext;
}

/** The annotation keys trace context is written under. */
export interface TraceAnnotationKeys {
  readonly traceparent: string;
  readonly tracestate: string;
}

/**
 * The context of the active span, or `undefined` when none is active or
 * its ids are not valid W3C ones. A `tracestate` that is not valid W3C is
 * left out, the traceparent kept. Never throws: a span or trace state of
 * the application's own making that throws, or returns something else than
 * asked, counts as no context rather than fail the publish.
 */
export function activeTraceContext(api: ActiveSpanApi): TraceContext | undefined {
  try {
    const spanContext = api.trace.getActiveSpan()?.spanContext();
    if (!spanContext) return undefined;
    const traceparent = w3cTraceparent(spanContext);
    if (!traceparent) return undefined;
    return { traceparent, tracestate: tracestateOf(spanContext), spanContext };
  } catch {
    return undefined;
  }
}

function tracestateOf(spanContext: SpanContext): string | undefined {
  try {
    return w3cTracestate(spanContext.traceState?.serialize());
  } catch {
    return undefined;
  }
}

/**
 * The trace annotations that fit beside the caller's `annotations` within
 * the API server's 256 KiB: both, else the traceparent alone, else none.
 * Trace context gives way, so that it never gets an Event refused that
 * would be accepted without it.
 */
function fittingTrace(
  annotations: Record<string, string> | undefined,
  trace: TraceContext,
  keys: TraceAnnotationKeys,
): { traceparent?: string; tracestate?: string } {
  // The caller's own values under these keys are replaced, so they do not count.
  const others = annotations ? withoutTraceAnnotations(annotations, keys)! : {};
  // Keys and values of trace context are ASCII: a character is a byte.
  const traceparentBytes = keys.traceparent.length + trace.traceparent.length;
  const tracestateBytes = trace.tracestate ? keys.tracestate.length + trace.tracestate.length : 0;
  if (annotationsFit(others, traceparentBytes + tracestateBytes)) return trace;
  if (annotationsFit(others, traceparentBytes)) return { traceparent: trace.traceparent };
  return {};
}

/** A created Event's annotations: the caller's, plus the trace context of its latest occurrence as far as it fits. */
export function annotationsForCreate(
  annotations: Record<string, string> | undefined,
  trace: TraceContext | undefined,
  keys: TraceAnnotationKeys,
): Record<string, string> | undefined {
  if (!trace) return annotations;
  const { traceparent, tracestate } = fittingTrace(annotations, trace, keys);
  if (!traceparent) return annotations;
  const traced = { ...annotations, [keys.traceparent]: traceparent };
  if (tracestate) traced[keys.tracestate] = tracestate;
  return traced;
}

/**
 * The annotations a series patch sets: the trace context of its latest
 * occurrence, which replaces the previous one whole (`null` removes a
 * tracestate the new trace does not have, or that does not fit: JSON merge
 * patch), fitted beside the caller's `annotations` (the series' own, the
 * same on every repeat) as on a create. None when it ran in no span: the
 * Event keeps naming the latest trace that raised it, and a patch without
 * a span is the same as without OpenTelemetry.
 */
export function annotationsForPatch(
  annotations: Record<string, string> | undefined,
  trace: TraceContext | undefined,
  keys: TraceAnnotationKeys,
): Record<string, string | null> | undefined {
  if (!trace) return undefined;
  const { traceparent, tracestate } = fittingTrace(annotations, trace, keys);
  // Not even a traceparent fits: it did not on the create either, so the Event has none to move.
  if (!traceparent) return undefined;
  return { [keys.traceparent]: traceparent, [keys.tracestate]: tracestate ?? null };
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
