import type { Link, Span, SpanContext } from '@opentelemetry/api';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { OpenTelemetryApi } from './opentelemetry-api.js';
import { k8sEventAttributes } from './k8s-event-attributes.js';
import { parseTraceparent } from './traceparent.js';
import { w3cTracestate } from './w3c-trace-context.js';
import { errorMessage, errorStack } from '../text/describe-value.js';
import { isPromiseLike } from '../values/promise-like.js';
import { startedSpan, withoutSdkFaults } from './sdk-faults.js';

/** The annotation KEP-5915 names for the trace context of the change that made an object what it is. */
export const TRACEPARENT_ANNOTATION = 'tracing.k8s.io/traceparent';

/** The longest object name, namespace, kind or uid a span attribute takes: a Kubernetes name is at most 253. */
const MAX_ATTRIBUTE_CHARS = 253;

/**
 * The span context an object's annotation names, when it is a valid W3C
 * `traceparent` (and `tracestate`, under the same key with `tracestate` for
 * `traceparent`, when valid too), read as a resumed Event's is; `undefined`
 * for none or an invalid one.
 */
function annotatedSpanContext(
  api: OpenTelemetryApi,
  object: KubernetesObject,
  annotation: string,
): SpanContext | undefined {
  const annotations = object.metadata?.annotations;
  const traceparent = annotations?.[annotation];
  if (typeof traceparent !== 'string') return undefined;
  const stateKey = annotation.endsWith('traceparent') ? `${annotation.slice(0, -'traceparent'.length)}tracestate` : '';
  const tracestate = stateKey ? w3cTracestate(annotations?.[stateKey]) : undefined;
  return parseTraceparent(traceparent, (state) => api.createTraceState(state), tracestate);
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
  const span = startedSpan(() =>
    api.trace.getTracer('nestjs-kube-events').startSpan(name, {
      kind: api.SpanKind.CONSUMER,
      root: true,
      links,
      attributes: objectAttributes(object),
    }),
  );
  // The SDK failed to start one: the reconcile runs without its span, rather than fail for it.
  if (!span) return work();
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

/** The object's identity under the receiver's attribute names; a field that is no Kubernetes name is left out. */
function objectAttributes(object: KubernetesObject | undefined): Record<string, string | number> {
  const bounded = (value: unknown) =>
    typeof value === 'string' && value.length <= MAX_ATTRIBUTE_CHARS ? value : undefined;
  const metadata = object?.metadata;
  return k8sEventAttributes({
    namespace: bounded(metadata?.namespace),
    object: { kind: bounded(object?.kind), name: bounded(metadata?.name), uid: bounded(metadata?.uid) },
  });
}

/** Ends the span; what the SDK throws then is dropped: the reconcile's own result stands. */
function ended(api: OpenTelemetryApi, span: Span, error?: unknown): void {
  withoutSdkFaults(() => {
    if (error !== undefined) {
      // A span goes to a collector: what it says of the error is bounded, redacted and escaped, as log lines are.
      const message = errorMessage(error);
      span.recordException(error instanceof Error ? { name: error.name, message, stack: errorStack(error) } : message);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message });
    }
    span.end();
  });
}
