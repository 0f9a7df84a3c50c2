// setupFilesAfterEnv of the `e2e` project. Jest only honours `testTimeout`
// in the global configuration, not in a project, so the e2e project's
// longer default timeout is set here.
import { jest } from '@jest/globals';

jest.setTimeout(60_000);
