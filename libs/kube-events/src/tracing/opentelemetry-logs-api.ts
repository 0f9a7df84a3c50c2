import { loadOptional, type ModuleLoader } from './optional-module.js';

/** The `@opentelemetry/api-logs` module. */
export type OpenTelemetryLogsApi = typeof import('@opentelemetry/api-logs');

/** The OpenTelemetry logs API, or `undefined` when `@opentelemetry/api-logs` is not installed. */
export function loadOpenTelemetryLogsApi(load?: ModuleLoader): OpenTelemetryLogsApi | undefined {
  const api = loadOptional<OpenTelemetryLogsApi>('@opentelemetry/api-logs', load);
  return typeof api?.logs?.getLogger === 'function' ? api : undefined;
}
