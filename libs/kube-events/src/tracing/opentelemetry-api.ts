import { loadOptional, type ModuleLoader } from './optional-module.js';

/** The `@opentelemetry/api` module. */
export type OpenTelemetryApi = typeof import('@opentelemetry/api');

/** The OpenTelemetry API, or `undefined` when `@opentelemetry/api` is not installed. */
export function loadOpenTelemetryApi(load?: ModuleLoader): OpenTelemetryApi | undefined {
  const api = loadOptional<OpenTelemetryApi>('@opentelemetry/api', load);
  return typeof api?.trace?.getTracer === 'function' ? api : undefined;
}
