// What the notes of failed reconciles read on the real kube-apiserver when
// the reconcile fails the way operators' reconciles do: through
// @kubernetes/client-node (refusals, a ServiceAccount without rights, a bad
// token, nothing listening), with a message that changes every time, and
// with a credential in the error. A @PublishesFailures reconciler wired with
// KubeEventsModule.forRoot and the default options; the Events are read back
// through the API.
import 'reflect-metadata';
import { CoreV1Api, type EventsV1Event } from '@kubernetes/client-node';
import { serviceAccountKubeConfig } from '../../tools/control-plane/control-plane.js';
import { freePort } from '../../tools/control-plane/free-port.js';
import type { Scratch } from './support/library-fixtures.js';
import { failingReconcilerPerTest, type WidgetReconciler } from './support/failing-reconciler.js';
import { kubeConfigWith } from './support/kube-config-with.js';
import type { CapturedLogs } from '../support/captured-logs.js';
import { lastProbe } from '../support/eventually.js';

const MAX_NOTE_BYTES_OF_API_ERRORS = 300;

function countOf(event: EventsV1Event): number {
  return event.series?.count ?? 1;
}

describe('failure notes on the real API server', () => {
  let scratch: Scratch;
  let reconciler: WidgetReconciler;
  let logs: CapturedLogs;
  failingReconcilerPerTest('failure-notes-e2e', (started) => ({ scratch, reconciler, logs } = started));

  /** Reconciles a fresh ConfigMap `times` times, each failing with what `work` throws, and returns its Events. */
  async function failRepeatedly(times: number, work: () => Promise<unknown>): Promise<EventsV1Event[]> {
    const object = await scratch.configMap(`widget-${times}-${Math.random().toString(36).slice(2, 8)}`);
    reconciler.work = work;
    for (let attempt = 0; attempt < times; attempt++) await expect(reconciler.reconcile(object)).rejects.toBeDefined();
    // A failure whose write waited (behind the write of its series on its way) is counted on the server within
    // maxDelay, after its reconcile returned: read until every failure is counted, or for a few seconds.
    return lastProbe(
      () => scratch.eventsAbout(object),
      (events) => events.reduce((sum, event) => sum + countOf(event), 0) >= times,
      { timeoutMs: 10_000, everyMs: 100 },
    );
  }

  /** Exactly one Event, counting all 20 failures, whose note is one line of at most 300 bytes. */
  async function expectOneReadableEvent(work: () => Promise<unknown>): Promise<string> {
    const events = await failRepeatedly(20, work);

    expect(events.map((event) => [event.reason, countOf(event)])).toEqual([['ReconcileFailed', 20]]);
    const note = events[0].note!;
    expect(note).not.toMatch(/[\r\n]/);
    expect(Buffer.byteLength(note)).toBeLessThanOrEqual(MAX_NOTE_BYTES_OF_API_ERRORS);
    expect(note).not.toMatch(/audit-id|Headers|HTTP-Code|x-kubernetes-pf/i);
    return note;
  }

  it('reads a 404 as the server says it', async () => {
    const core = scratch.admin.makeApiClient(CoreV1Api);

    const note = await expectOneReadableEvent(() =>
      core.readNamespacedConfigMap({ name: 'source-missing', namespace: scratch.namespace }),
    );
    expect(note).toBe('NotFound: configmaps "source-missing" not found');
  });

  it('reads a 409 as the server says it', async () => {
    const core = scratch.admin.makeApiClient(CoreV1Api);
    await scratch.configMap('target');

    const note = await expectOneReadableEvent(() =>
      core.createNamespacedConfigMap({
        namespace: scratch.namespace,
        body: { metadata: { name: 'target' }, data: { key: 'value' } },
      }),
    );
    expect(note).toBe('AlreadyExists: configmaps "target" already exists');
  });

  it('reads a 422 as the server says it, within the bound', async () => {
    const core = scratch.admin.makeApiClient(CoreV1Api);

    const note = await expectOneReadableEvent(() =>
      core.createNamespacedConfigMap({ namespace: scratch.namespace, body: { metadata: { name: 'Bad_Name' } } }),
    );
    expect(note).toMatch(/^Invalid: ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": /);
  });

  it('reads a 403 of a ServiceAccount without rights as the server says it', async () => {
    const { kubeConfig, username } = await serviceAccountKubeConfig(scratch.admin, {
      namespace: scratch.namespace,
      name: 'no-rights',
    });
    const core = kubeConfig.makeApiClient(CoreV1Api);

    const note = await expectOneReadableEvent(() =>
      core.readNamespacedSecret({ name: 'database', namespace: scratch.namespace }),
    );
    expect(note).toBe(
      `Forbidden: secrets "database" is forbidden: User "${username}" cannot get resource "secrets" in API group "" ` +
        `in the namespace "${scratch.namespace}"`,
    );
  });

  it('reads a 401 (a bad token) as its status, since client-node keeps no body of it', async () => {
    const core = kubeConfigWith(scratch.admin, { token: 'not-a-token-the-server-knows' }).makeApiClient(CoreV1Api);

    const note = await expectOneReadableEvent(() =>
      core.readNamespacedConfigMap({ name: 'source', namespace: scratch.namespace }),
    );
    expect(note).toBe('HTTP 401 Unauthorized');
  });

  it('reads an API server that is not listening by the cause of the failure', async () => {
    const port = await freePort();
    const core = kubeConfigWith(scratch.admin, { server: `https://127.0.0.1:${port}` }).makeApiClient(CoreV1Api);

    const note = await expectOneReadableEvent(() =>
      core.readNamespacedConfigMap({ name: 'source', namespace: scratch.namespace }),
    );
    expect(note).toBe(`fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('leaves at most 12 Events for 40 failures whose message changes every time, counting every one', async () => {
    let attempt = 0;
    const events = await failRepeatedly(40, async () => {
      attempt++;
      throw new Error(`waiting for pod web-0 (attempt ${attempt}, ${attempt * 37} ms)`);
    });

    expect(events.length).toBeLessThanOrEqual(12);
    expect(events.reduce((sum, event) => sum + countOf(event), 0)).toBe(40);
    expect(events.filter((event) => event.note!.startsWith('(combined from similar events): '))).toHaveLength(1);
  });

  it('publishes and logs no credential of a failed webhook call', async () => {
    const events = await failRepeatedly(1, () =>
      fetch('https://deploy-bot:hunter2-S3CRET@hooks.example.com/notify', { method: 'POST' }),
    );

    expect(events.map((event) => event.note)).toEqual([
      'Request cannot be constructed from a URL that includes credentials: https://[redacted]@hooks.example.com/notify',
    ]);
    const logged = logs.lines.filter((line) => line.includes('hooks.example.com'));
    expect(logged.length).toBeGreaterThan(0);
    expect(logs.lines.join('\n')).not.toContain('hunter2');
  });
});
