import type { Link, Span, SpanContext } from '@opentelemetry/api';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { OpenTelemetryApi } from './opentelemetry-api.js';
import { w3cTracestate } from './w3c-trace-context.js';
import { errorMessage, errorStack } from '../describe-value.js';

/** The annotation KEP-5915 names for the trace context of the change that made an object what it is. */
export const TRACEPARENT_ANNOTATION = 'tracing.k8s.io/traceparent';

/** A `traceparent` (W3C Trace Context): version, trace id, parent id, flags; version `ff` is not one. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ALL_ZEROS = /^0+$/;

/**
 * The span context an object's annotation names, when it is a valid W3C
 * `traceparent` (and `tracestate`, under the same key with `tracestate` for
 * `traceparent`, when valid too); `undefined` for none or an invalid one.
 */
function annotatedSpanContext(
  api: OpenTelemetryApi,
  object: KubernetesObject,
  annotation: string,
): SpanContext | undefined {
  const annotations = object.metadata?.annotations;
  const traceparent = annotations?.[annotation];
  if (typeof traceparent !== 'string' || traceparent.length !== 55) return undefined;
  const parsed = TRACEPARENT.exec(traceparent);
  if (!parsed || parsed[1] === 'ff' || ALL_ZEROS.test(parsed[2]) || ALL_ZEROS.test(parsed[3])) return undefined;
  // Version 00 holds exactly these four fields; a later version may add more, which this length already left out.
  const stateKey = annotation.endsWith('traceparent') ? `${annotation.slice(0, -'traceparent'.length)}tracestate` : '';
  const tracestate = stateKey ? w3cTracestate(annotations?.[stateKey]) : undefined;
  return {
    traceId: parsed[2],
    spanId: parsed[3],
    traceFlags: Number.parseInt(parsed[4], 16),
    isRemote: true,
    ...(tracestate && { traceState: api.createTraceState(tracestate) }),
  };
}

/**
 * Runs `work`, a reconcile of `object`, in a span of its own as KEP-5915's
 * reading side has it: a new root span of kind consumer, linked to the
 * trace context the object's annotation carries (the `kubectl apply` that
 * changed it), with the object's identity as attributes. The span ends
 * when `work` returns or settles, with the error it threw, if any.
 */
export function inReconcileSpan<T>(
  api: OpenTelemetryApi,
  name: string,
  object: KubernetesObject | undefined,
  annotation: string,
  work: () => T,
): T {
  const linked = object && annotatedSpanContext(api, object, annotation);
  const links: Link[] = linked ? [{ context: linked }] : [];
  const span = api.trace.getTracer('nestjs-kube-events').startSpan(name, {
    kind: api.SpanKind.CONSUMER,
    root: true,
    links,
    attributes: objectAttributes(object),
  });
  return api.context.with(api.trace.setSpan(api.context.active(), span), () => {
    let result: T;
    try {
      result = work();
    } catch (error) {
      ended(api, span, error);
      throw error;
    }
    if (!isPromiseLike(result)) {
      ended(api, span);
      return result;
    }
    return Promise.resolve(result).then(
      (value) => {
        ended(api, span);
        return value;
      },
      (error: unknown) => {
        ended(api, span, error);
        throw error;
      },
    ) as T;
  });
}

function objectAttributes(object: KubernetesObject | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  const { kind, metadata } = object ?? {};
  if (typeof kind === 'string') attributes['k8s.object.kind'] = kind;
  if (typeof metadata?.name === 'string') attributes['k8s.object.name'] = metadata.name;
  if (typeof metadata?.namespace === 'string') attributes['k8s.namespace.name'] = metadata.namespace;
  if (typeof metadata?.uid === 'string') attributes['k8s.object.uid'] = metadata.uid;
  return attributes;
}

function ended(api: OpenTelemetryApi, span: Span, error?: unknown): void {
  if (error !== undefined) {
    // A span goes to a collector: what it says of the error is bounded, redacted and escaped, as log lines are.
    const message = errorMessage(error);
    span.recordException(error instanceof Error ? { name: error.name, message, stack: errorStack(error) } : message);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message });
  }
  span.end();
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
