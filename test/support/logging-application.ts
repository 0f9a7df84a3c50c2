// An application whose recorder logs a line per publish outcome (logEvents), against the fake API server, with what
// it logs kept as lines: for tests of what leaves the process through the log.
import type { Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { KubeEventsModule } from 'nestjs-kube-events';
import { FakeApiServer } from './fake-api-server/index.js';
import { captureLogLines } from './logged-lines.js';

/** The fake API server, the initialised application, and the lines logged since it started. */
export interface LoggingApplication {
  readonly server: FakeApiServer;
  readonly app: TestingModule;
  readonly lines: string[];
}

/**
 * Starts a fake API server and an application with `providers`, reporting as `widgets`, without metrics, logging
 * each outcome; keeps what Nest's Logger is given at `levels` (until jest.restoreAllMocks).
 */
export async function startLoggingApplication(
  providers: Type[],
  levels?: Parameters<typeof captureLogLines>[0],
): Promise<LoggingApplication> {
  const server = await FakeApiServer.start();
  const lines = captureLogLines(levels);
  const app = await Test.createTestingModule({
    imports: [
      KubeEventsModule.forRoot({
        reporter: { controller: 'widgets' },
        kubeConfig: server.kubeConfig(),
        metrics: false,
        logEvents: true,
      }),
    ],
    providers,
  }).compile();
  await app.init();
  return { server, app, lines };
}
