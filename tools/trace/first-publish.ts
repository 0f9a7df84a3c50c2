// Which files of the library a first publish enters, from `publish()` to the settled promise: V8's precise
// coverage counts the calls of each function between two snapshots, taken around that one publish. Each file is
// listed with the functions of it that were entered and their calls. The module's defaults (token authentication,
// no OpenTelemetry), against the fake API server. docs/architecture.md has the route.
//
// It fails when the publish enters more than TRACE_MAX_FILES files of the library (40 unless set), so that the route
// stays short enough to follow: a file that takes the count past it is either a concern of its own (then raise the
// limit, saying why) or belongs in the file whose concern it already is.
//
//   npm run trace:first-publish
//   TRACE_MAX_FILES=45 npm run trace:first-publish
import { Session } from 'node:inspector/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Test } from '@nestjs/testing';
import { EventRecorder, KubeEventsModule } from '../../libs/kube-events/src/index.js';
import { FakeApiServer } from '../../test/support/fake-api-server/index.js';

const LIBRARY = fileURLToPath(new URL('../../libs/kube-events/src/', import.meta.url));
const maxFiles = Number(process.env.TRACE_MAX_FILES || 40);
if (!Number.isSafeInteger(maxFiles) || maxFiles < 0) {
  const given = JSON.stringify(process.env.TRACE_MAX_FILES?.slice(0, 40));
  process.stderr.write(`error: TRACE_MAX_FILES must be a whole number of files, not ${given}\n`);
  process.exit(2);
}

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
  .map((script) => ({
    file: fileURLToPath(script.url).slice(LIBRARY.length),
    // A module's top level is a function too: entered when the module loaded, not by the publish.
    functions: script.functions.filter((fn) => fn.ranges[0].startOffset > 0 && fn.ranges[0].count > 0),
  }))
  .filter(({ functions }) => functions.length)
  .sort((a, b) => (a.file < b.file ? -1 : 1));
const lines = entered.map(({ file, functions }) => {
  const calls = functions.reduce((sum, fn) => sum + fn.ranges[0].count, 0);
  return `  ${file}  ${functions.length} functions, ${calls} calls`;
});
const functions = entered.reduce((sum, { functions }) => sum + functions.length, 0);
process.stdout.write(`${lines.join('\n')}\n${entered.length} files of the library, ${functions} functions entered\n`);
await app.close();
await server.close();
if (entered.length > maxFiles) {
  process.stderr.write(
    `error: a first publish enters ${entered.length} files of the library, more than the limit of ${maxFiles} (TRACE_MAX_FILES)\n`,
  );
  process.exitCode = 1;
}
