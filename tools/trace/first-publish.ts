// Which files of the library a first publish enters, from `publish()` to the settled promise: V8's precise
// coverage counts the calls of each function between two snapshots, taken around that one publish. The module's
// defaults (token authentication, no OpenTelemetry), against the fake API server. docs/architecture.md has the route.
//
//   npm run trace:first-publish
import { Session } from 'node:inspector/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Test } from '@nestjs/testing';
import { EventRecorder, KubeEventsModule } from '../../libs/kube-events/src/index.js';
import { FakeApiServer } from '../../test/support/fake-api-server/index.js';

const LIBRARY = fileURLToPath(new URL('../../libs/kube-events/src/', import.meta.url));

const server = await FakeApiServer.start();
const app = await Test.createTestingModule({
  imports: [
    KubeEventsModule.forRoot({ reporter: { controller: 'example.com/trace' }, kubeConfig: server.kubeConfig() }),
  ],
}).compile();
await app.init();
// The permission review that starts with the module is its own work, not the publish's.
await sleep(500);
const recorder = app.get(EventRecorder);
const widget = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'widget', namespace: 'default', uid: 'u-1' } };

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
await session.post('Profiler.takePreciseCoverage');
await recorder.publish(widget, { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' });
const { result } = await session.post('Profiler.takePreciseCoverage');
await session.post('Profiler.stopPreciseCoverage');
session.disconnect();

const entered = result
  .filter((script) => script.url.startsWith('file://') && fileURLToPath(script.url).startsWith(LIBRARY))
  .filter((script) => script.functions.some((fn) => fn.ranges[0].count > 0))
  .map((script) => fileURLToPath(script.url).slice(LIBRARY.length))
  .sort();
process.stdout.write(`${entered.map((file) => `  ${file}`).join('\n')}\n${entered.length} files of the library\n`);
await app.close();
await server.close();
