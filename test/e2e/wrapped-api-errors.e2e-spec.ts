// A reconcile that wraps client-node's error in its own
// (`new Error(\`could not mirror the source: ${err.message}\`)`, the common
// idiom) copies the ApiException's text, response headers included, into
// its message. Against the real kube-apiserver, a client with a token the
// server does not know fails 20 times so; the Events are read back.
import 'reflect-metadata';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Scratch } from './support/library-fixtures.js';
import { failingReconcilerPerTest, type WidgetReconciler } from './support/failing-reconciler.js';
import { kubeConfigWith } from './support/kube-config-with.js';
import type { CapturedLogs } from '../support/captured-logs.js';

describe("client-node's refusals copied into another error's message, on the real API server", () => {
  let scratch: Scratch;
  let reconciler: WidgetReconciler;
  let logs: CapturedLogs;
  failingReconcilerPerTest('wrapped-errors-e2e', (started) => ({ scratch, reconciler, logs } = started));

  it('folds 20 wrapped 401s into one Event whose note has none of the headers', async () => {
    const token = 'bogus-3f9a7c1e5b2d8f4a6c0e9b7d5f3a1c8e';
    const core = kubeConfigWith(scratch.admin, { token }).makeApiClient(CoreV1Api);
    const object = await scratch.configMap('mirror-target');
    reconciler.work = async () => {
      try {
        await core.readNamespacedConfigMap({ name: 'source', namespace: scratch.namespace });
      } catch (error) {
        // eslint-disable-next-line preserve-caught-error -- the idiom under test copies the message and drops the cause
        throw new Error(`could not mirror the source: ${(error as Error).message}`);
      }
    };
    const wrapped = await reconciler.reconcile(object).catch((error: unknown) => error as Error);
    expect(String(wrapped)).toMatch(/HTTP-Code: 401[\s\S]*audit-id/);

    for (let attempt = 1; attempt < 20; attempt++) await expect(reconciler.reconcile(object)).rejects.toBeDefined();
    const events = await scratch.eventsAbout(object);

    expect(events.map((event) => [event.reason, event.series?.count ?? 1])).toEqual([['ReconcileFailed', 20]]);
    expect(events[0].note).toBe('could not mirror the source: HTTP 401 Unauthorized');
    expect(events[0].note).not.toMatch(/audit-id|date|Headers|HTTP-Code/i);
    expect(logs.lines.join('\n')).not.toMatch(/audit-id|bogus-3f9a/);
  });
});
