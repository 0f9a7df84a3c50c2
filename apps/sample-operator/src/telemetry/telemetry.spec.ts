import { startTelemetry, telemetryConfigured } from './telemetry.js';

describe('telemetryConfigured', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_SERVICE_NAME: 'operator' }, false],
  ])('%j: %s', (env, configured) => {
    expect(telemetryConfigured(env)).toBe(configured);
  });

  it('starts no SDK when nothing configures one', async () => {
    await expect(startTelemetry({})).resolves.toBeUndefined();
  });
});
