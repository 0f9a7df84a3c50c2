// The permission check on the real API server: a ServiceAccount with no rights on events.k8s.io is told at
// start-up, without a publish, in one warn line (or start-up fails with it); the shipped Role bound in its
// namespace gives no such line; a publish into a namespace without the binding names that namespace. The
// terminus health indicator follows. Each test has fresh namespaces, removed afterwards.
import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { Logger } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  EventRecorder,
  KubeEventsHealth,
  PublishApiError,
  type KubeEvent,
  type KubeEventsModuleOptions,
} from 'nestjs-kube-events';
import { KubeEventsHealthIndicator } from 'nestjs-kube-events/terminus';
import {
  type ControlPlane,
  serviceAccountKubeConfig,
  sharedControlPlane,
} from '../../tools/control-plane/control-plane.js';
import { Scratch, randomSuffix, rejectionOf, retrying } from './support/library-fixtures.js';
import { compileWithHealth } from './support/health-application.js';
import { publisherRbac } from './support/publisher-rbac.js';
import { eventually } from '../support/eventually.js';
import { muteLogger } from '../support/logged-lines.js';

const synced: KubeEvent = { type: 'Normal', reason: 'Synced', action: 'Sync', note: 'in sync' };

describe('the permission check on the real API server', () => {
  let cp: ControlPlane;
  let scratch: Scratch;
  let warn: jest.SpiedFunction<Logger['warn']>;
  const apps: TestingModule[] = [];

  const permissionLines = () =>
    warn.mock.calls.map(([message]) => String(message)).filter((line) => line.includes('events.k8s.io'));
  const start = async (kubeConfig: KubeConfig, options: Partial<KubeEventsModuleOptions> = {}) => {
    const app = await compileWithHealth(kubeConfig, options);
    apps.push(app);
    await app.init();
    return app;
  };
  const startedUp = (app: TestingModule) =>
    eventually('the start-up review', () => app.get(KubeEventsHealth).state().permissions.scope !== 'pending');

  /** The authorizer learns of a new binding through an informer: a test starts once it is in effect. */
  const bindingInEffect = (kubeconfigPath: string, namespace: string) =>
    retrying(
      async () => {
        const can = await cp.kubectl(['auth', 'can-i', 'patch', 'events.events.k8s.io', '--namespace', namespace], {
          kubeconfigPath,
        });
        if (can.stdout.trim() !== 'yes') throw new Error('the binding is not in effect yet');
      },
      () => true,
    );

  beforeEach(async () => {
    cp = sharedControlPlane();
    scratch = await Scratch.create(cp.kubeConfig(), 'permission-e2e-a');
    warn = muteLogger('warn');
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    jest.restoreAllMocks();
    await scratch?.cleanup();
  });

  it('without any rights: says so within seconds of start-up, without a publish; the indicator warns until a publish is refused, then is down; fail mode stops start-up with the same message', async () => {
    const a = scratch.namespace;
    const sa = await serviceAccountKubeConfig(cp, { namespace: a, name: 'no-rights' });
    const app = await start(sa.kubeConfig);

    const [line, ...more] = await eventually('the warn line', () => permissionLines().length > 0 && permissionLines());
    expect(more).toEqual([]);
    // Named as the real API server's SelfSubjectReview answers.
    expect(line).toContain(
      `system:serviceaccount:${a}:no-rights may not create, get, patch events in API group events.k8s.io in namespace "${a}"`,
    );
    expect(line).toContain('(nor cluster-wide)');
    expect(line).toContain('node_modules/nestjs-kube-events/rbac/role.yaml');
    expect(app.get(KubeEventsHealth).state().permissions.missing).toEqual([
      { namespace: a, verbs: ['create', 'get', 'patch'], published: false },
    ]);
    const indicator = app.get(KubeEventsHealthIndicator);
    expect(indicator.isHealthy()['kube-events']).toMatchObject({ status: 'up', writable: true, warnings: 1 });

    const refused = await rejectionOf(app.get(EventRecorder).publish(await scratch.configMap('app-config', a), synced));
    expect(refused).toBeInstanceOf(PublishApiError);
    expect(indicator.isHealthy()['kube-events']).toMatchObject({
      status: 'down',
      writable: false,
      permissions: { missingWherePublished: 1, missingElsewhere: 0 },
    });
    expect(JSON.stringify(indicator.isHealthy())).not.toContain(a);

    const failed = await rejectionOf(start(sa.kubeConfig, { permissionCheck: 'fail' }));
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toBe(line);
  });

  it('with the shipped Role bound in one namespace: no line publishing there, the indicator up; a second namespace without the binding is named, and the indicator degraded, not down', async () => {
    const a = scratch.namespace;
    const b = `permission-e2e-b-${randomSuffix()}`;
    await scratch.createNamespace(b);
    const [inA, inB] = await Promise.all([scratch.configMap('app-config', a), scratch.configMap('app-config', b)]);
    const sa = await serviceAccountKubeConfig(cp, { namespace: a, name: 'operator' });
    const applied = await cp.kubectl(['apply', '-n', a, '-f', '-'], { input: publisherRbac(a, 'operator') });
    expect(applied.code).toBe(0);
    await bindingInEffect(sa.kubeconfigPath, a);

    const app = await start(sa.kubeConfig);
    await startedUp(app);
    await app.get(EventRecorder).publish(inA, synced);
    expect(await scratch.eventsAbout(inA)).toHaveLength(1);
    expect(permissionLines()).toEqual([]);
    const health = app.get(KubeEventsHealth).state();
    expect(health).toMatchObject({ writable: true, permissions: { scope: 'per-namespace', missing: [] } });
    expect(app.get(KubeEventsHealthIndicator).isHealthy()['kube-events'].status).toBe('up');

    const refused = await rejectionOf(app.get(EventRecorder).publish(inB, synced));
    expect(refused).toBeInstanceOf(PublishApiError);
    const [line, ...more] = await eventually('the warn line', () => permissionLines().length > 0 && permissionLines());
    expect(more).toEqual([]);
    expect(line).toContain(`may not create, get, patch events in API group events.k8s.io in namespace "${b}"`);
    expect(line).not.toContain(`"${a}"`);
    expect(app.get(KubeEventsHealth).state().permissions.missing).toEqual([
      { namespace: b, verbs: ['create', 'get', 'patch'], published: true },
    ]);
    // Its Events in the first namespace still get through: degraded, with nothing that names either namespace.
    expect(app.get(KubeEventsHealth).state()).toMatchObject({
      writable: true,
      problems: [],
      degraded: [`may not create, get, patch events.k8s.io events in namespace "${b}"`],
    });
    const body = app.get(KubeEventsHealthIndicator).isHealthy()['kube-events'];
    expect(body).toMatchObject({ status: 'degraded', degraded: 1, permissions: { missingWherePublished: 1 } });
    expect(JSON.stringify(body)).not.toContain(b);
  });

  it('with the shipped Role bound only in the namespace it publishes to, not its own: up after a publish there, with a warning for its own', async () => {
    const home = scratch.namespace;
    const target = `permission-e2e-c-${randomSuffix()}`;
    await scratch.createNamespace(target);
    const object = await scratch.configMap('app-config', target);
    const sa = await serviceAccountKubeConfig(cp, { namespace: home, name: 'namespaced-operator' });
    const applied = await cp.kubectl(['apply', '-n', target, '-f', '-'], {
      input: publisherRbac(target, 'namespaced-operator', home),
    });
    expect(applied.code).toBe(0);
    await bindingInEffect(sa.kubeconfigPath, target);

    const app = await start(sa.kubeConfig);
    await startedUp(app);
    await app.get(EventRecorder).publish(object, synced);
    expect(await scratch.eventsAbout(object)).toHaveLength(1);

    const state = app.get(KubeEventsHealth).state();
    expect(state).toMatchObject({
      writable: true,
      problems: [],
      permissions: { missing: [{ namespace: home, verbs: ['create', 'get', 'patch'], published: false }] },
    });
    expect(state.warnings).toEqual([
      expect.stringContaining(`in namespace "${home}", where nothing was published yet`),
    ]);
    expect(app.get(KubeEventsHealthIndicator).isHealthy()['kube-events']).toMatchObject({
      status: 'up',
      warnings: 1,
      permissions: { missingWherePublished: 0, missingElsewhere: 1 },
    });
  });
});
