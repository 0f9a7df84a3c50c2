import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { startOperator, type RunningOperator } from './operator.js';
import { operatorOptionsFromEnv } from './operator.options.js';
import { redact } from './redaction/redact.js';
import { redactingLogger } from './redaction/redacting-logger.js';
import { startTelemetry, type Telemetry } from './telemetry/telemetry.js';

/**
 * Runs the ConfigMirror operator until SIGTERM or SIGINT, then stops the
 * watches, drains the reconciles in flight, closes the application, releases
 * the Lease if it leads (LEADER_ELECT=true) and exits 0.
 *
 * With leader election, a replica that loses the Lease (it could not renew
 * it in time, or someone else holds it) stops its controller at once, then
 * shuts down and exits 1, as controller-runtime does: the Deployment
 * restarts it, and it comes back as a candidate with nothing left over from
 * its term (informer caches, queued retries, Event series).
 * The cluster comes from $KUBECONFIG (else ~/.kube/config, else in-cluster).
 * With OpenTelemetry configured in the standard `OTEL_*` environment
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_TRACES_EXPORTER`…), each reconcile
 * runs in a span, and its Events carry that span's trace context.
 */
async function main(): Promise<void> {
  // Before anything logs: every line of the process, Nest's included, passes the redaction.
  const processLogger = redactingLogger(undefined);
  if (processLogger) Logger.overrideLogger(processLogger);
  const logger = new Logger('main');
  let operator: RunningOperator;
  let telemetry: Telemetry | undefined;
  try {
    telemetry = await startTelemetry();
    operator = await startOperator(operatorOptionsFromEnv(), { logger: processLogger });
  } catch (error) {
    logger.error(`could not start: ${describe(error)}`);
    process.exit(1);
  }

  // SIGTERM and SIGINT close the application (see OperatorShutdown for the order), then the process exits 0.
  operator.app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  const tracing = telemetry;
  if (tracing) {
    operator.afterShutdown(() =>
      tracing.shutdown().catch((error: unknown) => logger.warn(`telemetry: ${describe(error)}`)),
    );
  }
  void operator.leaderElection?.whenLost().then(async (reason) => {
    logger.error(`leader election lost (${reason}): exiting`);
    await operator.stop().catch((error: unknown) => logger.error(`error while stopping: ${describe(error)}`));
    process.exit(1);
  });
}

function describe(error: unknown): string {
  return redact(error instanceof Error ? error.message : String(error));
}

await main();
