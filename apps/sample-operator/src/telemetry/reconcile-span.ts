import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { KubernetesObject } from '@kubernetes/client-node';
import { redact } from '../redaction/redact.js';

const tracer = trace.getTracer('sample-operator');

/**
 * Runs one reconcile of `object` in a span `reconcile <kind>`, so that the
 * Events it publishes (failures included) name its trace. Without an
 * OpenTelemetry SDK registered the span is a no-op.
 */
export function inReconcileSpan<T>(object: KubernetesObject, reconcile: () => Promise<T>): Promise<T> {
  const attributes = {
    'k8s.namespace.name': object.metadata?.namespace ?? '',
    'k8s.object.kind': object.kind ?? '',
    'k8s.object.name': object.metadata?.name ?? '',
    'k8s.object.uid': object.metadata?.uid ?? '',
  };
  return tracer.startActiveSpan(`reconcile ${object.kind ?? 'object'}`, { attributes }, async (span) => {
    try {
      return await reconcile();
    } catch (error) {
      // A span goes to a collector: its text passes the redaction, as log lines do.
      const message = redact(error instanceof Error ? error.message : String(error));
      span.recordException(
        error instanceof Error
          ? { name: error.name, message, ...(error.stack ? { stack: redact(error.stack) } : {}) }
          : message,
      );
      span.setStatus({ code: SpanStatusCode.ERROR, message });
      throw error;
    } finally {
      span.end();
    }
  });
}
