// The local control plane's plumbing, without the library: raw
// @kubernetes/client-node and kubectl against the etcd + kube-apiserver that
// test/e2e/global-setup.ts started. Each test checks one of the facts in
// notes/control-plane.md that the library relies on.
import {
  ApiException,
  CoreV1Api,
  EventsV1Api,
  type EventsV1Event,
  PatchStrategy,
  RbacAuthorizationV1Api,
  V1MicroTime,
  VersionApi,
  type V1ConfigMap,
  type V1ObjectReference,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ControlPlane,
  serviceAccountKubeConfig,
  sharedControlPlane,
} from '../../tools/control-plane/control-plane.js';
import { kubernetesVersion } from '../../tools/control-plane/build.js';
import { apiRefusal as refusal } from './support/library-fixtures.js';

const CONTROLLER = 'kube-events.e2e/control-plane-test';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** MicroTime with exactly six fractional digits, as a string. */
function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1456Z');
}

describe('local control plane (plumbing, no library)', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let events: EventsV1Api;
  let namespace: string;
  let configMap: V1ConfigMap;
  let regarding: V1ObjectReference;

  function event(overrides: Partial<EventsV1Event> = {}): EventsV1Event {
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { generateName: `${configMap.metadata!.name}-`, namespace },
      eventTime: new V1MicroTime(),
      type: 'Normal',
      reason: 'PlumbingChecked',
      action: 'Check',
      note: 'created by the control-plane e2e test',
      regarding,
      reportingController: CONTROLLER,
      reportingInstance: 'jest',
      ...overrides,
    };
  }

  beforeAll(async () => {
    cp = sharedControlPlane();
    const kubeConfig = cp.kubeConfig();
    core = kubeConfig.makeApiClient(CoreV1Api);
    events = kubeConfig.makeApiClient(EventsV1Api);
    namespace = `cp-e2e-${randomBytes(3).toString('hex')}`;
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    configMap = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'plumbing', namespace }, data: { hello: 'world' } },
    });
    regarding = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: configMap.metadata!.name,
      namespace,
      uid: configMap.metadata!.uid,
      resourceVersion: configMap.metadata!.resourceVersion,
    };
  });

  test('runs the Kubernetes that KUBE_EVENTS_KUBERNETES names, the newest the repository builds by default', async () => {
    const { gitVersion } = await cp.kubeConfig().makeApiClient(VersionApi).getCode();
    // An existing cluster (KUBE_EVENTS_E2E_KUBECONFIG) runs whatever it runs.
    expect(gitVersion).toEqual(cp.external ? expect.stringMatching(/^v1\./) : await kubernetesVersion());
  });

  test('eventTime must have exactly six fractional digits: a Date (three) is refused with 400, six are accepted', async () => {
    // client-node serialises a plain Date with toISOString(): three digits.
    const threeDigits = await refusal(
      events.createNamespacedEvent({ namespace, body: event({ eventTime: new Date() }) }),
    );
    expect(threeDigits.code).toBe(400);
    expect(threeDigits.message).toMatch(/eventTime|time|parsing/i);

    // series.lastObservedTime is a MicroTime too.
    const seriesThreeDigits = await refusal(
      events.createNamespacedEvent({
        namespace,
        body: event({ series: { count: 2, lastObservedTime: new Date() } }),
      }),
    );
    expect(seriesThreeDigits.code).toBe(400);

    // Six digits, sent as a string (the serializer passes it through).
    const fromString = await events.createNamespacedEvent({
      namespace,
      body: event({ eventTime: microTime() as unknown as V1MicroTime }),
    });
    expect(fromString.metadata?.name).toMatch(/^plumbing-[a-z0-9]{5}$/);
    expect(String(fromString.eventTime)).toMatch(/\.\d{6}Z$/);

    // client-node 2.x's V1MicroTime pads toISOString() to six digits.
    const fromMicroTime = await events.createNamespacedEvent({
      namespace,
      body: event({ note: 'sent as V1MicroTime' }),
    });
    expect(String(fromMicroTime.eventTime)).toMatch(/\.\d{3}000Z$/);
  });

  test('kubectl describe shows the Event under the object', async () => {
    await events.createNamespacedEvent({
      namespace,
      body: event({ type: 'Warning', reason: 'DescribeMe', note: 'visible in kubectl describe' }),
    });
    const { stdout, stderr, code } = await cp.kubectl(['describe', 'configmap', 'plumbing', '--namespace', namespace]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const eventsSection = stdout.slice(stdout.indexOf('Events:'));
    expect(eventsSection).toMatch(/Type\s+Reason\s+Age\s+From\s+Message/);
    expect(eventsSection).toMatch(
      new RegExp(
        `Warning\\s+DescribeMe\\s+\\S+\\s+${CONTROLLER.replace(/[./]/g, '\\$&')}.*visible in kubectl describe`,
      ),
    );
  });

  test('create: the API server validates type, names, lengths and series', async () => {
    const invalid = async (overrides: Partial<EventsV1Event>): Promise<string> => {
      const refused = await refusal(events.createNamespacedEvent({ namespace, body: event(overrides) }));
      expect({ code: refused.code, reason: refused.reason }).toEqual({ code: 422, reason: 'Invalid' });
      return refused.message;
    };
    expect(await invalid({ type: 'Info' })).toMatch(/type/);
    expect(await invalid({ eventTime: undefined })).toMatch(/eventTime/);
    expect(await invalid({ reportingController: 'Not a qualified name!' })).toMatch(/reportingController/);
    expect(await invalid({ reportingController: 'x'.repeat(64) })).toMatch(/reportingController/);
    expect(await invalid({ reportingInstance: '' })).toMatch(/reportingInstance/);
    expect(await invalid({ reportingInstance: 'i'.repeat(129) })).toMatch(/reportingInstance/);
    expect(await invalid({ action: '' })).toMatch(/action/);
    expect(await invalid({ reason: 'R'.repeat(129) })).toMatch(/reason/);
    // 1025 bytes of note; the message uses the core field name, `message`.
    expect(await invalid({ note: 'é'.repeat(512) + 'x' })).toMatch(/message/);
    expect(await invalid({ series: { count: 1, lastObservedTime: new V1MicroTime() } })).toMatch(/series\.count/);
    // Deprecated fields must be unset; the message names the core field (`count`).
    expect(await invalid({ deprecatedCount: 3 })).toMatch(/count: .*needs to be unset/);

    // At the limits everything is accepted.
    const atLimits = await events.createNamespacedEvent({
      namespace,
      body: event({
        reason: 'R'.repeat(128),
        action: 'A'.repeat(128),
        reportingInstance: 'i'.repeat(128),
        note: 'é'.repeat(512),
        reportingController: `example.com/${'c'.repeat(63)}`,
        series: { count: 2, lastObservedTime: new V1MicroTime() },
      }),
    });
    expect(atLimits.series?.count).toBe(2);

    // A generateName is cut to 58 characters, then 5 random ones are added.
    const longName = await events.createNamespacedEvent({
      namespace,
      body: event({ metadata: { generateName: `${'n'.repeat(70)}-`, namespace } }),
    });
    expect(longName.metadata!.name).toMatch(new RegExp(`^${'n'.repeat(58)}[a-z0-9]{5}$`));
    // generateName itself is validated as a DNS-subdomain *prefix*: only a
    // trailing '-' is tolerated, so `<name>.` is refused (while client-go's
    // explicit `<name>.<hex nanoseconds>` names are fine). Upper case and ':'
    // are refused too.
    for (const generateName of ['plumbing.', `${'n'.repeat(70)}.`, 'Upper-', 'system:controller:x-']) {
      expect(await invalid({ metadata: { generateName, namespace } })).toMatch(/metadata\.generateName/);
    }
    const explicit = `plumbing.${(BigInt(Date.now()) * 1_000_000n).toString(16)}`;
    expect(
      (await events.createNamespacedEvent({ namespace, body: event({ metadata: { name: explicit, namespace } }) }))
        .metadata?.name,
    ).toBe(explicit);
  });

  test('an Event about a cluster-scoped object lives in default or kube-system only', async () => {
    const cluster: V1ObjectReference = { apiVersion: 'v1', kind: 'Namespace', name: namespace };
    const refused = await refusal(
      events.createNamespacedEvent({
        namespace,
        body: event({ regarding: cluster, metadata: { generateName: `${namespace}-`, namespace } }),
      }),
    );
    expect(refused.code).toBe(422);
    expect(refused.message).toMatch(/involvedObject\.namespace|namespace/);
    for (const home of ['default', 'kube-system']) {
      const created = await events.createNamespacedEvent({
        namespace: home,
        body: event({ regarding: cluster, metadata: { generateName: `${namespace}-`, namespace: home } }),
      });
      expect(created.metadata?.namespace).toBe(home);
    }
  });

  test('update: only series (and labels/annotations) may change; a merge patch of series works', async () => {
    const created = await events.createNamespacedEvent({ namespace, body: event({ note: 'to be patched' }) });
    const name = created.metadata!.name!;
    const patched = await events.patchNamespacedEvent(
      { name, namespace, body: { series: { count: 2, lastObservedTime: microTime() } } },
      mergePatch,
    );
    expect(patched.series?.count).toBe(2);
    expect(String(patched.series?.lastObservedTime)).toMatch(/\.\d{6}Z$/);
    const again = await events.patchNamespacedEvent(
      { name, namespace, body: { series: { count: 3, lastObservedTime: microTime() } } },
      mergePatch,
    );
    expect(again.series?.count).toBe(3);

    for (const change of [
      { note: 'changed' },
      { reason: 'Changed' },
      { type: 'Warning' },
      { action: 'Changed' },
      { reportingController: 'x.io/other' },
    ]) {
      const refused = await refusal(events.patchNamespacedEvent({ name, namespace, body: change }, mergePatch));
      expect(refused.code).toBe(422);
    }
    const missing = await refusal(
      events.patchNamespacedEvent(
        { name: 'no-such-event', namespace, body: { series: { count: 2, lastObservedTime: microTime() } } },
        mergePatch,
      ),
    );
    expect(missing.code).toBe(404);
  });

  test('a missing namespace answers 404, a terminating one 403', async () => {
    const missing = await refusal(
      events.createNamespacedEvent({
        namespace: 'no-such-namespace',
        body: event({ metadata: { generateName: 'x-', namespace: 'no-such-namespace' } }),
      }),
    );
    expect(missing.code).toBe(404);

    // Without kube-controller-manager nothing finalizes a deleted namespace:
    // it stays Terminating for the rest of the run.
    const terminating = `${namespace}-gone`;
    await core.createNamespace({ body: { metadata: { name: terminating } } });
    await core.deleteNamespace({ name: terminating });
    expect((await core.readNamespace({ name: terminating })).status?.phase).toBe('Terminating');
    const refused = await refusal(
      events.createNamespacedEvent({
        namespace: terminating,
        body: event({ metadata: { generateName: 'x-', namespace: terminating } }),
      }),
    );
    expect(refused.code).toBe(403);
  });

  test('RBAC: a ServiceAccount needs create and patch on events.k8s.io events', async () => {
    const sa = await serviceAccountKubeConfig(cp, { namespace, name: 'operator' });
    const asOperator = sa.kubeConfig.makeApiClient(EventsV1Api);
    expect((await refusal(asOperator.createNamespacedEvent({ namespace, body: event() }))).code).toBe(403);

    const rbac = cp.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: 'event-publisher', namespace },
        rules: [{ apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'event-publisher', namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'event-publisher' },
        subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace }],
      },
    });
    // RBAC takes effect through an informer: allow it a moment.
    let created: EventsV1Event | undefined;
    for (let attempt = 0; !created; attempt++) {
      try {
        created = await asOperator.createNamespacedEvent({ namespace, body: event({ note: 'as the operator' }) });
      } catch (error) {
        if (attempt > 50 || (error as ApiException<unknown>).code !== 403) throw error;
        await sleep(100);
      }
    }
    const patched = await asOperator.patchNamespacedEvent(
      { name: created.metadata!.name!, namespace, body: { series: { count: 2, lastObservedTime: microTime() } } },
      mergePatch,
    );
    expect(patched.series?.count).toBe(2);
    // Nothing else was granted.
    expect((await refusal(asOperator.readNamespacedEvent({ name: created.metadata!.name!, namespace }))).code).toBe(
      403,
    );
    const { stdout } = await cp.kubectl(['auth', 'can-i', 'create', 'events.events.k8s.io', '--namespace', namespace], {
      kubeconfigPath: sa.kubeconfigPath,
    });
    expect(stdout.trim()).toBe('yes');
  });

  test('--event-ttl: an extra API server with a 5 s TTL deletes Events, and every update restarts the TTL', async () => {
    if (cp.external) return; // needs the etcd of a control plane started here
    const extra = await cp.startExtraApiServer({ eventTtl: '5s' });
    try {
      const extraEvents = extra.kubeConfig().makeApiClient(EventsV1Api);
      const extraCore = extra.kubeConfig().makeApiClient(CoreV1Api);
      // Its own etcd prefix: an empty cluster, without the shared one's namespace.
      expect((await refusal(extraCore.readNamespace({ name: namespace }))).code).toBe(404);
      const cm = await extraCore.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'ttl' } },
      });
      const ref: V1ObjectReference = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'ttl',
        namespace: 'default',
        uid: cm.metadata!.uid,
      };
      const body = (): EventsV1Event =>
        event({ regarding: ref, metadata: { generateName: 'ttl-', namespace: 'default' } });

      const started = Date.now();
      const [untouched, touched] = await Promise.all([
        extraEvents.createNamespacedEvent({ namespace: 'default', body: body() }),
        extraEvents.createNamespacedEvent({ namespace: 'default', body: body() }),
      ]);
      const exists = async (name: string) => {
        try {
          await extraEvents.readNamespacedEvent({ name, namespace: 'default' });
          return true;
        } catch (error) {
          if ((error as ApiException<unknown>).code === 404) return false;
          throw error;
        }
      };
      await sleep(3_000);
      await extraEvents.patchNamespacedEvent(
        {
          name: touched.metadata!.name!,
          namespace: 'default',
          body: { series: { count: 2, lastObservedTime: microTime() } },
        },
        mergePatch,
      );
      while (await exists(untouched.metadata!.name!)) {
        expect(Date.now() - started).toBeLessThan(20_000);
        await sleep(100);
      }
      const untouchedGoneAfter = Date.now() - started;
      expect(untouchedGoneAfter).toBeGreaterThanOrEqual(4_500);
      // The patched one was renewed at ~3 s, so it outlives the other.
      expect(await exists(touched.metadata!.name!)).toBe(true);
      while (await exists(touched.metadata!.name!)) {
        expect(Date.now() - started).toBeLessThan(25_000);
        await sleep(100);
      }
      const touchedGoneAfter = Date.now() - started;
      expect(touchedGoneAfter).toBeGreaterThanOrEqual(7_500);
      // Visible in the report when run with --verbose.
      console.info(
        `event TTL 5s: untouched Event gone after ${untouchedGoneAfter} ms, patched one after ${touchedGoneAfter} ms`,
      );
    } finally {
      await extra.stop();
    }
  });
});
