// A small Nest application whose @PublishesFailures reconcile fails as a test tells it to, publishing with
// KubeEventsModule.forRoot's default options (and logEvents) into a scratch namespace of the real API server.
import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { KubernetesObject } from '@kubernetes/client-node';
import { KubeEventsModule, PublishesFailures } from 'nestjs-kube-events';
import { CapturedLogs } from '../../support/captured-logs.js';
import { sharedControlPlane } from '../../../tools/control-plane/control-plane.js';
import { CONTROLLER, Scratch } from './library-fixtures.js';

@Injectable()
export class WidgetReconciler {
  /** What the next reconcile does; it fails. */
  work: () => Promise<unknown> = async () => undefined;

  @PublishesFailures()
  async reconcile(_object: KubernetesObject): Promise<void> {
    await this.work();
  }
}

/** The application, its reconciler, and every line it logged. */
interface FailingReconciler {
  readonly app: TestingModule;
  readonly reconciler: WidgetReconciler;
  readonly logs: CapturedLogs;
}

/** Starts the application as the scratch namespace's admin, reporting as {@link CONTROLLER} from `pod-0`. */
async function startFailingReconciler(scratch: Scratch): Promise<FailingReconciler> {
  const logs = new CapturedLogs();
  const app = await Test.createTestingModule({
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
  return { app, reconciler: app.get(WidgetReconciler), logs };
}

/**
 * For each test of the enclosing `describe`: a fresh namespace `<prefix>-…` on the shared control plane and the
 * application publishing into it, handed to `use`; both are gone after the test.
 */
export function failingReconcilerPerTest(
  prefix: string,
  use: (started: FailingReconciler & { readonly scratch: Scratch }) => void,
): void {
  let scratch: Scratch | undefined;
  let app: TestingModule | undefined;
  beforeEach(async () => {
    scratch = await Scratch.create(sharedControlPlane().kubeConfig(), prefix);
    const started = await startFailingReconciler(scratch);
    app = started.app;
    use({ ...started, scratch });
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await scratch?.cleanup();
    scratch = undefined;
  });
}
