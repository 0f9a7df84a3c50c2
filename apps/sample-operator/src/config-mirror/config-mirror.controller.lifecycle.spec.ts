// When ConfigMirrorController runs: on bootstrap without leader election; only
// when the operator starts it (on acquiring the Lease) with it; never again
// once stopped (a replica that lost the Lease); and a stop shuts the work
// queue before anything else, so that no reconcile starts after it. (ConfigMaps
// are watched only in the namespaces ConfigMirrors use: with none, none.)
import { jest } from '@jest/globals';
import { KubeConfig, type CoreV1Api, type CustomObjectsApi } from '@kubernetes/client-node';
import type { EventRecorder } from 'nestjs-kube-events';
import type { ResilientInformer } from '../controller/informer.js';
import { WorkQueue } from '../controller/work-queue.js';
import { resolveOperatorOptions, type OperatorOptions } from '../operator.options.js';
import type { ConfigMirrorReconciler } from './config-mirror.reconciler.js';
import type { ConfigMirrorStatusWriter } from './config-mirror.status-writer.js';
import { muteLogger } from '../../../../test/support/logged-lines.js';

const steps: string[] = [];

/** Just enough of a ResilientInformer to start and stop. */
class FakeInformer {
  hasSynced = false;
  constructor(private readonly name: string) {}
  onAdd(): void {}
  onUpdate(): void {}
  onDelete(): void {}
  onResync(): void {}
  list(): unknown[] {
    return [];
  }
  whenSynced(): Promise<void> {
    return new Promise(() => {});
  }
  start(): void {
    steps.push(`${this.name} started`);
  }
  async stop(): Promise<void> {
    steps.push(`${this.name} stopped`);
  }
}

jest.unstable_mockModule('./config-mirror.informers.js', () => ({
  configMirrorInformer: () => new FakeInformer('configmirrors') as unknown as ResilientInformer<never>,
  configMapInformer: () => new FakeInformer('configmaps') as unknown as ResilientInformer<never>,
  namespaceInformer: () => new FakeInformer('namespaces') as unknown as ResilientInformer<never>,
}));

const { ConfigMirrorController } = await import('./config-mirror.controller.js');

describe('ConfigMirrorController: when it runs', () => {
  beforeEach(() => {
    steps.length = 0;
    muteLogger('log');
    const shutDown = WorkQueue.prototype.shutDown;
    jest.spyOn(WorkQueue.prototype as WorkQueue<string>, 'shutDown').mockImplementation(function (
      this: WorkQueue<string>,
    ) {
      steps.push('queue shut down');
      shutDown.call(this);
    });
  });

  afterEach(() => jest.restoreAllMocks());

  function controller(options: OperatorOptions) {
    return new ConfigMirrorController(
      new KubeConfig(),
      {} as CoreV1Api,
      {} as CustomObjectsApi,
      {} as ConfigMirrorReconciler,
      {} as ConfigMirrorStatusWriter,
      {} as EventRecorder,
      resolveOperatorOptions({ instance: 'test', resyncPeriodMs: 0, shutdownTimeoutMs: 50, ...options }),
    );
  }

  test('without leader election it starts on application bootstrap', () => {
    const subject = controller({});
    subject.onApplicationBootstrap();
    expect(steps).toEqual(['configmirrors started', 'namespaces started']);
    expect(subject.isRunning).toBe(true);
  });

  test('with leader election it waits to be started (by the replica that acquires the Lease)', () => {
    const subject = controller({ leaderElect: true });
    subject.onApplicationBootstrap();
    expect(steps).toEqual([]);
    expect(subject.isRunning).toBe(false);
    subject.start();
    expect(steps).toEqual(['configmirrors started', 'namespaces started']);
  });

  test('with MIRROR_TARGETS=any-namespace it does not watch namespaces', () => {
    controller({ mirrorTargets: 'any-namespace' }).start();
    expect(steps).toEqual(['configmirrors started']);
  });

  test('a stop shuts the queue first, then closes the watches; it never starts again', async () => {
    const subject = controller({ leaderElect: true });
    subject.start();
    steps.length = 0;
    await subject.stop();
    expect(steps).toEqual(['queue shut down', 'configmirrors stopped', 'namespaces stopped']);
    expect(subject.isRunning).toBe(false);
    subject.start();
    expect(steps).toHaveLength(3);
  });

  test('a standby that is stopped before it ever led does not start afterwards', async () => {
    const subject = controller({ leaderElect: true });
    await subject.stop();
    subject.start();
    expect(steps).toEqual([]);
  });
});
