import { Logger, type INestApplication } from '@nestjs/common';
import { LeaderElection } from './leader-election/leader-election.js';
import { createOperator, listenForProbes } from './operator.js';

// Runs the operator, configured by its environment, until SIGTERM or SIGINT: Nest then stops the watches, drains
// the reconciles, releases the Lease and exits 0. A replica that loses the Lease closes and exits 1, as
// controller-runtime does: the Deployment restarts it as a candidate with nothing left over from its term.
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
