// The health indicator's degraded status against a real kube-apiserver: while API Priority and Fairness rejects the
// recorder's writes (429s from a priority level of one share), and while occurrences wait queued for an API server
// that was killed (an extra kube-apiserver on the shared etcd, started again afterwards). Down stays for "nothing can
// be written": past the timeout without a server.
import 'reflect-metadata';
import { jest } from '@jest/globals';
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
import { Scratch, forbidden, retrying } from './support/library-fixtures.js';
import { compileWithHealth } from './support/health-application.js';
import { publisherRbac } from './support/publisher-rbac.js';
import { tightPriorityLevel } from './support/tight-priority-level.js';
import { eventually } from '../support/eventually.js';
import { muteLogger } from '../support/logged-lines.js';

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

describe('the health indicator’s degraded status on the real API server', () => {
  let scratch: Scratch | undefined;
  let app: TestingModule | undefined;

  const start = async (kubeConfig: KubeConfig, options: Partial<KubeEventsModuleOptions> = {}) => {
    app = await compileWithHealth(kubeConfig, options);
    await app.init();
    return app;
  };
  const statusOf = (started: TestingModule) => started.get(KubeEventsHealthIndicator).isHealthy()['kube-events'];

  beforeEach(() => {
    muteLogger('warn');
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    jest.restoreAllMocks();
    await scratch?.cleanup();
    scratch = undefined;
  });

  it('is degraded, throttled, once API Priority and Fairness rejects the writes (429)', async () => {
    const cp = sharedControlPlane();
    scratch = await Scratch.create(cp.kubeConfig(), 'degraded-apf-e2e');
    const level = `kube-events-${scratch.namespace}`;
    const { namespace } = scratch;
    try {
      const sa = await serviceAccountKubeConfig(cp, { namespace, name: 'throttled' });
      const applied = await cp.kubectl(['apply', '-n', namespace, '-f', '-'], {
        input: `${publisherRbac(namespace, 'throttled')}---\n${tightPriorityLevel(level, { namespace, serviceAccount: 'throttled' })}`,
      });
      expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: '' });
      const started = await start(sa.kubeConfig, { permissionCheck: 'off', timeout: 30_000 });
      const recorder = started.get(EventRecorder);
      // The authorizer learns of the new binding through an informer: wait until a write gets in.
      const probe = await scratch.configMap('probe');
      await retrying(() => recorder.publish(probe, failed), forbidden);
      expect(statusOf(started)).toMatchObject({ status: 'up', throttled: false });

      let throttledStatus: ReturnType<typeof statusOf> | undefined;
      recorder.outcomes$.subscribe((outcome) => {
        const { error } = outcome;
        if (outcome.kind === 'failed' && error instanceof PublishApiError && error.statusCode === 429)
          throttledStatus ??= statusOf(started);
      });
      const objects = await Promise.all(Array.from({ length: 40 }, (_, i) => scratch!.configMap(`storm-${i}`)));
      await Promise.all(
        objects.flatMap((object) => Array.from({ length: 5 }, () => recorder.publish(object, failed).catch(() => {}))),
      );

      expect(throttledStatus).toMatchObject({ status: 'degraded', writable: true, throttled: true });
      expect(started.get(KubeEventsHealth).state().degraded).toContain(
        'the API server throttles the writes (429 or 503): they go below the configured rate',
      );
    } finally {
      await cp.kubectl(['delete', 'flowschema,prioritylevelconfiguration', level, '--ignore-not-found']);
    }
  }, 120_000);

  describe('with an API server that goes away', () => {
    let extra: ControlPlane;

    beforeAll(async () => {
      extra = await sharedControlPlane().startExtraApiServer();
    }, 120_000);
    afterAll(async () => {
      await extra?.stop();
    });

    it('is degraded while occurrences wait queued for it, down past the timeout, and up once it is back', async () => {
      scratch = await Scratch.create(extra.kubeConfig(), 'degraded-queued-e2e');
      const started = await start(extra.kubeConfig(), { permissionCheck: 'off', timeout: 3_000 });
      const recorder = started.get(EventRecorder);
      const object = await scratch.configMap('app-config');
      await recorder.publish(object, failed);
      expect(statusOf(started)).toMatchObject({ status: 'up', occurrences: { queued: 0, retrying: 0 } });

      await extra.killApiServer();
      await recorder.publish(object, failed).catch(() => undefined);
      // Its publish was told it stays queued; the server has been gone for less than the timeout.
      expect(statusOf(started)).toMatchObject({
        status: 'degraded',
        writable: true,
        server: 'unreachable',
        occurrences: { queued: 1, retrying: 1 },
      });
      await eventually('the timeout to pass', () => statusOf(started).status === 'down', { timeoutMs: 30_000 });

      await extra.startApiServerAgain();
      await eventually(
        'the queued occurrence written once the server is back',
        async () => {
          await recorder.publish(object, failed).catch(() => undefined);
          return statusOf(started).status === 'up';
        },
        { timeoutMs: 60_000, everyMs: 500 },
      );
      const [event] = await scratch.allEvents();
      expect(event.series?.count).toBeGreaterThanOrEqual(3);
    }, 120_000);
  });
});
