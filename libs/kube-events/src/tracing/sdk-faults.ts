import type { Span } from '@opentelemetry/api';

/**
 * Starts a span through the tracing SDK; `undefined` when the SDK throws
 * (a faulty sampler or processor), so that what it would trace runs
 * without it rather than fail for it.
 */
export function startedSpan(start: () => Span): Span | undefined {
  try {
    return start();
  } catch {
    return undefined;
  }
}

/**
 * Runs calls into the tracing SDK whose failure must not reach the caller
 * (giving a span its result, ending it): what a faulty sampler, processor
 * or exporter throws there is dropped. Tracing costs a span, never a write
 * or a reconcile.
 */
export function withoutSdkFaults(calls: () => void): void {
  try {
    calls();
  } catch {
    // The span is lost; what it traced stands.
  }
}
