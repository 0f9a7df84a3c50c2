// A child process that loads the library with @opentelemetry/* hidden (as if
// not installed) or visible, with tracing on or off, publishes once to memory, and prints as JSON
// which OpenTelemetry modules were asked for and loaded, and when, and the
// Event written.
import { registerHooks } from 'node:module';

const hide = process.argv.includes('--hide-opentelemetry');
const off = process.argv.includes('--tracing-off');
const loaded: string[] = [];
const asked: string[] = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (hide && specifier.startsWith('@opentelemetry/')) {
      asked.push(specifier);
      throw Object.assign(new Error(`Cannot find module '${specifier}'`), { code: 'MODULE_NOT_FOUND' });
    }
    const resolved = nextResolve(specifier, context);
    if (resolved.url.includes('/@opentelemetry/')) loaded.push(resolved.url);
    return resolved;
  },
});

const { EventRecorder } = await import('../../libs/kube-events/src/index.js');
const { InMemoryEventsWriter } = await import('../../libs/kube-events/src/testing/in-memory-events-writer.js');
const loadedByImport = loaded.length;
const writer = new InMemoryEventsWriter();
const tracing = off ? { traceContext: false, writeSpans: false } : {};
const recorder = new EventRecorder({ reporter: { controller: 'widgets' }, ...tracing }, writer);
await recorder.publish(
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'default', uid: 'uid-app' } },
  { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' },
);
await recorder.onApplicationShutdown();
console.log(
  JSON.stringify({
    loadedByImport,
    loaded: loaded.length,
    asked,
    events: writer.events.map((event) => ({ name: event.metadata?.name, annotations: event.metadata?.annotations })),
  }),
);
