// A reconcile that wraps client-node's error in its own
// (`new Error(\`could not mirror the source: ${err.message}\`)`, the common
// idiom) copies the ApiException's text, response headers included, into
// its message. Against the real kube-apiserver, a client with a token the
// server does not know fails 20 times so; the Events are read back.
import 'reflect-metadata';
import { Injectable, type LoggerService } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { CoreV1Api, KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { KubeEventsModule, PublishesFailures } from 'nestjs-kube-events';
import { sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { CONTROLLER, Scratch } from './support/library-fixtures.js';

@Injectable()
class WidgetReconciler {
  /** What the next reconcile does; it fails. */
  work: () => Promise<unknown> = async () => undefined;

  @PublishesFailures()
  async reconcile(_object: KubernetesObject): Promise<void> {
    await this.work();
  }
}

/** Every line Nest's Logger was given. */
class CapturedLogs implements LoggerService {
  readonly lines: string[] = [];
  log = (message: unknown) => this.lines.push(String(message));
  warn = (message: unknown) => this.lines.push(String(message));
  error = (message: unknown) => this.lines.push(String(message));
  debug = (message: unknown) => this.lines.push(String(message));
  verbose = (message: unknown) => this.lines.push(String(message));
}

/** A KubeConfig for the shared API server with a token it does not know. */
function kubeConfigWithToken(admin: KubeConfig, token: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ ...admin.getCurrentCluster()!, name: 'cluster' }],
    users: [{ name: 'user', token }],
    contexts: [{ name: 'context', cluster: 'cluster', user: 'user' }],
    currentContext: 'context',
  });
  return kubeConfig;
}

describe("client-node's refusals copied into another error's message, on the real API server", () => {
  let scratch: Scratch;
  let app: TestingModule | undefined;
  let reconciler: WidgetReconciler;
  let logs: CapturedLogs;

  beforeEach(async () => {
    scratch = await Scratch.create(sharedControlPlane().kubeConfig(), 'wrapped-errors-e2e');
    logs = new CapturedLogs();
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({
          reporter: { controller: CONTROLLER, instance: 'pod-0' },
          kubeConfig: scratch.admin,
          logEvents: true,
        }),
      ],
      providers: [WidgetReconciler],
    })
      .setLogger(logs)
      .compile();
    await app.init();
    reconciler = app.get(WidgetReconciler);
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await scratch?.cleanup();
  });

  it('folds 20 wrapped 401s into one Event whose note has none of the headers', async () => {
    const token = 'bogus-3f9a7c1e5b2d8f4a6c0e9b7d5f3a1c8e';
    const core = kubeConfigWithToken(scratch.admin, token).makeApiClient(CoreV1Api);
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
