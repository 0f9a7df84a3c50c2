// setupFilesAfterEnv of the `e2e` project. Jest only honours `testTimeout`
// in the global configuration, not in a project, so the e2e project's
// longer default timeout is set here.
import { afterAll, jest } from '@jest/globals';
import { killRunningOperators } from './support/operator-fixtures.js';

jest.setTimeout(60_000);

// Whatever a test file's failures left running, its operator processes end with it.
afterAll(killRunningOperators, 30_000);
