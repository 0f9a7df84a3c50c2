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
