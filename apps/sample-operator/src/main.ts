import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { startOperator } from './operator.js';
import { operatorOptionsFromEnv } from './operator.options.js';

/**
 * Runs the ConfigMirror operator until SIGTERM or SIGINT, then stops the
 * watches, drains the reconciles in flight, closes the application and exits 0.
 * The cluster comes from $KUBECONFIG (else ~/.kube/config, else in-cluster).
 */
async function main(): Promise<void> {
  const logger = new Logger('main');
  try {
    const operator = await startOperator(operatorOptionsFromEnv());
    operator.app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  } catch (error) {
    logger.error(`could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

await main();
