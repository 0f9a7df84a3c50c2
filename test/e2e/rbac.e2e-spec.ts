// RBAC: the library acting as a ServiceAccount bound to the Role it ships
// (libs/kube-events/rbac/role.yaml: create, get and patch on events.k8s.io
// events, nothing else; get reads an Event back after a lost answer or a
// 409 Conflict). Publishing and aggregation work where it is bound;
// elsewhere the publish rejects with PublishApiError 403 Forbidden, and the
// recorder keeps working where it is allowed. Each test has fresh namespaces,
// removed afterwards.
import { readFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { type KubeEvent, PublishApiError } from 'nestjs-kube-events';
import {
  type ControlPlane,
  serviceAccountKubeConfig,
  sharedControlPlane,
} from '../../tools/control-plane/control-plane.js';
import { Scratch, forbidden, randomSuffix, rejectionOf, retrying } from './support/library-fixtures.js';
import { ROLE_NAME, SHIPPED_ROLE, publisherRbac } from './support/publisher-rbac.js';
import { muteLogger } from '../support/logged-lines.js';

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

describe('EventRecorder under RBAC', () => {
  let cp: ControlPlane;
  let scratch: Scratch;

  beforeEach(async () => {
    cp = sharedControlPlane();
    scratch = await Scratch.create(cp.kubeConfig(), 'rbac-e2e-a');
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await scratch?.cleanup();
  });

  it('publishes and aggregates with the shipped Role; 403 where unbound; keeps working where bound', async () => {
    const a = scratch.namespace;
    const b = `rbac-e2e-b-${randomSuffix()}`;
    await scratch.createNamespace(b);
    const [inA, inB] = await Promise.all([scratch.configMap('app-config', a), scratch.configMap('app-config', b)]);

    const sa = await serviceAccountKubeConfig(cp, { namespace: a, name: 'operator' });
    const applied = await cp.kubectl(['apply', '-n', a, '-f', '-'], { input: publisherRbac(a, 'operator') });
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: '' });
    expect(applied.stdout).toContain(`role.rbac.authorization.k8s.io/${ROLE_NAME} created`);

    const recorder = scratch.recorder({ kubeConfig: sa.kubeConfig });
    // The authorizer learns of a new binding through an informer: allow it a moment.
    await retrying(() => recorder.publish(inA, failed), forbidden);
    await recorder.publish(inA, failed);
    const [event, ...others] = await scratch.eventsAbout(inA);
    expect(others).toHaveLength(0);
    expect(event.series?.count).toBe(2);

    // Namespace B: no binding.
    const error = await rejectionOf(recorder.publish(inB, failed));
    expect(error).toBeInstanceOf(PublishApiError);
    expect(error).toMatchObject({ statusCode: 403, reason: 'Forbidden' });
    expect((error as Error).message).toMatch(
      new RegExp(
        `system:serviceaccount:${a}:operator.*cannot create resource "events" in API group "events.k8s.io" in the namespace "${b}"`,
      ),
    );
    expect(await scratch.allEvents(b)).toHaveLength(0);

    // Still working in A: the series goes on, and a new series starts.
    await recorder.publish(inA, failed);
    await recorder.publish(inA, { type: 'Normal', reason: 'Synced', action: 'Sync', note: 'back in sync' });
    const after = await scratch.eventsAbout(inA);
    expect(after.map((e) => [e.reason, e.series?.count])).toEqual([
      ['SyncFailed', 3],
      ['Synced', undefined],
    ]);
    expect(after[0].metadata!.name).toBe(event.metadata!.name);
  });

  it('without the binding every publish is 403 Forbidden, and nothing else than create, get and patch is granted with it', async () => {
    const inA = await scratch.configMap('app-config');
    const sa = await serviceAccountKubeConfig(cp, { namespace: scratch.namespace, name: 'unbound' });
    const recorder = scratch.recorder({ kubeConfig: sa.kubeConfig });
    for (let i = 0; i < 2; i++) {
      await expect(recorder.publish(inA, failed)).rejects.toMatchObject({
        name: 'PublishApiError',
        statusCode: 403,
        reason: 'Forbidden',
      });
    }
    expect(await scratch.allEvents()).toHaveLength(0);

    // The shipped Role grants exactly what the recorder needs.
    const applied = await cp.kubectl(['apply', '-n', scratch.namespace, '-f', '-'], {
      input: publisherRbac(scratch.namespace, 'unbound'),
    });
    expect(applied.code).toBe(0);
    const can = async (verb: string) =>
      (
        await cp.kubectl(['auth', 'can-i', verb, 'events.events.k8s.io', '--namespace', scratch.namespace], {
          kubeconfigPath: sa.kubeconfigPath,
        })
      ).stdout.trim();
    await retrying(
      async () => {
        if ((await can('create')) !== 'yes') throw new Error('the binding is not in effect yet');
      },
      () => true,
    );
    for (const verb of ['get', 'patch']) expect(await can(verb)).toBe('yes');
    for (const verb of ['list', 'watch', 'update', 'delete']) expect(await can(verb)).toBe('no');
    await recorder.publish(inA, failed);
    expect(await scratch.allEvents()).toHaveLength(1);
  });

  it('with resumeSeries and the shipped Role (no list): the lookup is refused, Events are written all the same, and the refusal is logged once', async () => {
    const warn = muteLogger('warn');
    const [first, second] = await Promise.all([scratch.configMap('app-config'), scratch.configMap('app-source')]);
    const sa = await serviceAccountKubeConfig(cp, { namespace: scratch.namespace, name: 'resuming' });
    const applied = await cp.kubectl(['apply', '-n', scratch.namespace, '-f', '-'], {
      input: publisherRbac(scratch.namespace, 'resuming'),
    });
    expect(applied.code).toBe(0);
    const recorder = scratch.recorder({ kubeConfig: sa.kubeConfig, resumeSeries: true });
    await retrying(() => recorder.publish(first, failed), forbidden);
    await recorder.publish(first, failed);
    await recorder.publish(second, failed);

    expect((await scratch.eventsAbout(first)).map((event) => event.series?.count)).toEqual([2]);
    expect(await scratch.eventsAbout(second)).toHaveLength(1);
    const refusals = warn.mock.calls.filter(([message]) =>
      String(message).includes('resumeSeries: the API server refused to list Events'),
    );
    expect(refusals).toHaveLength(1);
    expect(String(refusals[0][0])).toMatch(/cannot list resource "events"/);
  });

  it('ships a ClusterRole with the same rules, which the API server accepts', async () => {
    const clusterRole = readFileSync(
      fileURLToPath(new URL('../../libs/kube-events/rbac/cluster-role.yaml', import.meta.url)),
      'utf8',
    );
    const rules = (manifest: string) => manifest.slice(manifest.indexOf('rules:'));
    expect(rules(clusterRole)).toBe(rules(SHIPPED_ROLE));
    const dryRun = await cp.kubectl(['apply', '--dry-run=server', '-f', '-'], { input: clusterRole });
    expect({ code: dryRun.code, stderr: dryRun.stderr }).toEqual({ code: 0, stderr: '' });
  });
});
