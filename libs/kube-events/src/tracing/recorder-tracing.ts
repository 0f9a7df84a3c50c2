import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { TraceHeaders } from '../api/events-api.js';
import type { ResolvedTracingOptions } from '../kube-events.interfaces.js';
import { k8sEventAttributes, type K8sEventIdentity } from './k8s-event-attributes.js';
import { startedSpan, withoutSdkFaults } from './sdk-faults.js';
import { loadOpenTelemetryApi, type OpenTelemetryApi } from './opentelemetry-api.js';
import type { ModuleLoader } from './optional-module.js';
import {
  activeTraceContext,
  annotationsForCreate,
  annotationsForPatch,
  withoutTraceAnnotations,
  type TraceAnnotationKeys,
  type TraceContext,
} from './trace-context.js';
import { w3cTraceparent, w3cTracestate } from './w3c-trace-context.js';

/** The name of the tracer and logger the library's spans and log records come from. */
export const INSTRUMENTATION_SCOPE = 'nestjs-kube-events';

/** The span attribute that says how a write was answered: `created`, `patched`, `exists`, `conflict`, `gone`, `found`. */
const WRITE_RESULT_ATTRIBUTE = 'kube_events.write.result';

/** What the server's answer to a write tells a span: how it was answered, and the Event as it now stands. */
export interface WriteAnswer {
  readonly result: string;
  readonly event?: Pick<K8sEventIdentity, 'name' | 'uid' | 'count'>;
}

/**
 * A recorder's OpenTelemetry: the trace context a publish runs in, the
 * annotations that carry it on the Event, and a span around each write.
 * There is none (the recorder holds `undefined`) when `@opentelemetry/api`
 * is not installed or both `traceContext` and `writeSpans` are off, so that
 * nothing of it runs then.
 */
export class RecorderTracing {
  private constructor(
    private readonly api: OpenTelemetryApi,
    /** Where trace context goes on an Event; unset with `traceContext: false`. */
    private readonly keys: TraceAnnotationKeys | undefined,
    /** Unset with `writeSpans: false`. */
    private readonly tracer: Tracer | undefined,
  ) {}

  /** The tracing `options` ask for, or `undefined` when they ask for none or OpenTelemetry is not installed. */
  static create(options: ResolvedTracingOptions, load?: ModuleLoader): RecorderTracing | undefined {
    const { traceContext, writeSpans } = options;
    if (!traceContext && !writeSpans) return undefined;
    const api = loadOpenTelemetryApi(load);
    if (!api) return undefined;
    const keys = traceContext
      ? { traceparent: `${traceContext.prefix}/traceparent`, tracestate: `${traceContext.prefix}/tracestate` }
      : undefined;
    return new RecorderTracing(api, keys, writeSpans ? api.trace.getTracer(INSTRUMENTATION_SCOPE) : undefined);
  }

  /** The trace context of the span active now, if any: captured when a publish is made. */
  capture(): TraceContext | undefined {
    return activeTraceContext(this.api);
  }

  /** The annotations of a created Event, trace context included as far as it fits within the server's limit. */
  createAnnotations(
    annotations: Record<string, string> | undefined,
    trace: TraceContext | undefined,
  ): Record<string, string> | undefined {
    return this.keys ? annotationsForCreate(annotations, trace, this.keys) : annotations;
  }

  /**
   * The annotations a series patch moves to its latest occurrence's trace,
   * fitted beside the series' own `annotations`; none with
   * `traceContext: false` or no span.
   */
  patchAnnotations(
    annotations: Record<string, string> | undefined,
    trace: TraceContext | undefined,
  ): Record<string, string | null> | undefined {
    return this.keys ? annotationsForPatch(annotations, trace, this.keys) : undefined;
  }

  /** An Event's annotations as a repeat compares them: trace context is not part of what makes a repeat. */
  comparableAnnotations(annotations: Record<string, string> | undefined): Record<string, string> | undefined {
    return this.keys ? withoutTraceAnnotations(annotations, this.keys) : annotations;
  }

  /**
   * Runs `write` in a span `<operation> Event`, a child of the span its
   * latest occurrence was published in (a root span when there was none,
   * whatever context the write happens to run in). An HTTP
   * instrumentation's client spans nest under it. `write` is given the
   * span's context as headers when the span is recorded, for a traced API
   * server's span of each request to name; none without a span, or for one
   * the sampler dropped. Without `writeSpans` or a registered SDK, `write`
   * simply runs.
   */
  traceWrite<T>(
    operation: string,
    identity: () => K8sEventIdentity,
    trace: TraceContext | undefined,
    write: (headers: TraceHeaders | undefined) => Promise<T>,
    answer: (result: T) => WriteAnswer,
  ): Promise<T> {
    if (!this.tracer || !this.sdkRegistered()) return write(undefined);
    const { api } = this;
    const parent = trace ? api.trace.setSpanContext(api.ROOT_CONTEXT, trace.spanContext) : api.ROOT_CONTEXT;
    const { tracer } = this;
    const span = startedSpan(() =>
      tracer.startSpan(
        `${operation} Event`,
        { kind: api.SpanKind.INTERNAL, attributes: k8sEventAttributes(identity()) },
        parent,
      ),
    );
    // The SDK failed to start one: the write goes without a span, rather than not at all.
    return span ? this.inSpan(span, parent, write, answer) : write(undefined);
  }

  /**
   * Whether an SDK is registered, checked at each write since it may be
   * registered after the recorder is built: without one every span is a
   * no-op, so a write skips building it.
   */
  private sdkRegistered(): boolean {
    const provider = this.api.trace.getTracerProvider();
    return (
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the API's only way to tell that no SDK is registered
      !(provider instanceof this.api.ProxyTracerProvider) ||
      provider.getDelegateTracer(INSTRUMENTATION_SCOPE) !== undefined
    );
  }

  /**
   * Runs the write in its span. What the SDK throws while the span is
   * given its result or ended (a faulty processor) is dropped: the span is
   * lost, not the write's own result.
   */
  private async inSpan<T>(
    span: Span,
    parent: Context,
    write: (headers: TraceHeaders | undefined) => Promise<T>,
    answer: (result: T) => WriteAnswer,
  ): Promise<T> {
    const { api } = this;
    const headers = traceHeadersOf(span);
    let result: T;
    try {
      result = await api.context.with(api.trace.setSpan(parent, span), write, undefined, headers);
    } catch (error) {
      withoutSdkFaults(() => {
        span.recordException(error instanceof Error ? error : String(error));
        span.setAttribute('error.type', errorType(error));
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined });
        span.end();
      });
      throw error;
    }
    withoutSdkFaults(() => {
      const { result: kind, event } = answer(result);
      span.setAttributes({ ...(event && k8sEventAttributes(event)), [WRITE_RESULT_ATTRIBUTE]: kind });
      span.end();
    });
    return result;
  }
}

/**
 * The headers that carry a write span's context: only for a span the SDK
 * records (one its sampler dropped tells the server nothing to link to),
 * only in valid W3C form, and none when the SDK throws.
 */
function traceHeadersOf(span: Span): TraceHeaders | undefined {
  try {
    if (!span.isRecording()) return undefined;
    const spanContext = span.spanContext();
    const traceparent = w3cTraceparent(spanContext);
    if (!traceparent) return undefined;
    const tracestate = w3cTracestate(spanContext.traceState?.serialize());
    return tracestate ? { traceparent, tracestate } : { traceparent };
  } catch {
    return undefined;
  }
}

/** `error.type` as the semantic conventions have it: the HTTP status code when the server answered, else the error's class. */
function errorType(error: unknown): string {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number') return String(status);
  return error instanceof Error ? error.name : '_OTHER';
}
