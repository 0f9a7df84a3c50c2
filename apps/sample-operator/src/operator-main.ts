import 'reflect-metadata';
import { Logger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { LeaderElection } from './leader-election/leader-election.js';
import { listenForProbes } from './operator.js';
import { OperatorModule } from './operator.module.js';
import { redactingLogger } from './redaction/redacting-logger.js';

// Runs the ConfigMirror operator, configured by its environment (operator.environment.ts), until SIGTERM or
// SIGINT: then Nest stops the watches, drains the reconciles in flight, releases the Lease if it leads and exits 0.
// A replica that loses the Lease stops its controller at once, closes and exits 1, as controller-runtime does:
// the Deployment restarts it as a candidate with nothing left over from its term.
let app: INestApplication | undefined;
try {
  // Every line of the process, Nest's included, passes the credential redaction.
  app = await NestFactory.create(OperatorModule.forRoot(), {
    logger: redactingLogger(undefined),
    abortOnError: false,
    forceCloseConnections: true,
  });
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  await listenForProbes(app);
} catch (error) {
  new Logger('main').error(`could not start: ${error instanceof Error ? error.message : String(error)}`);
  await app?.close();
  process.exit(1);
}
const running = app;
void running
  .get(LeaderElection)
  .whenLost()
  .then(() => running.close())
  .finally(() => process.exit(1));
