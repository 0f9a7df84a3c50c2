import { Logger, type INestApplication } from '@nestjs/common';
import { LeaderElection } from './leader-election/leader-election.js';
import { createOperator, listenForProbes } from './operator.js';

// Runs until SIGTERM or SIGINT: stop the watches, drain the reconciles, release the Lease, exit 0. A replica that
// loses the Lease exits 1, as controller-runtime's does: the Deployment restarts it as a fresh candidate.
let app: INestApplication | undefined;
try {
  app = await createOperator();
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
  .then((reason) => {
    new Logger('main').error(`leader election lost (${reason}): exiting`);
    return running.close();
  })
  .finally(() => process.exit(1));
