/** OpenTelemetry as the operator runs it: the SDK, started from the standard `OTEL_*` environment. */
export interface Telemetry {
  /** Exports what is buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Whether the environment configures OpenTelemetry traces: an exporter
 * (`OTEL_TRACES_EXPORTER` other than `none`) or an OTLP endpoint, and the
 * SDK not disabled (`OTEL_SDK_DISABLED=true`). Without any, the operator
 * starts no SDK rather than send to a default endpoint nobody listens on.
 */
export function telemetryConfigured(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (exporters.length) return !exporters.every((name) => name === 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts `@opentelemetry/sdk-node` when the environment configures it
 * (exporters, endpoint, `OTEL_SERVICE_NAME`, sampler: all from `OTEL_*`),
 * before the application is created, so that each reconcile runs in a span
 * and the Events it publishes carry that span's trace context. Loaded only
 * then: without OpenTelemetry configured, nothing of the SDK is loaded.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv = process.env): Promise<Telemetry | undefined> {
  if (!telemetryConfigured(env)) return undefined;
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK();
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
