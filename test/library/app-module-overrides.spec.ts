// An application's AppModule imports KubeEventsModule.forRoot(…); its tests replace that import the way Nest
// tests replace a module (`overrideModule`) or a provider (`overrideProvider`), on a machine with no kubeconfig.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Module, type DynamicModule } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, KubeEventsHealth, KubeEventsModule, PublishesFailures } from 'nestjs-kube-events';
import { FakeEventRecorder, KubeEventsTestingModule } from 'nestjs-kube-events/testing';
import { configMap } from '../support/objects.js';

@Injectable()
class WidgetReconciler {
  @PublishesFailures()
  async reconcile(object: KubernetesObject): Promise<void> {
    throw new Error(`widget ${object.metadata?.name} is broken`);
  }
}

const reporter = { controller: 'example.com/widgets' };
const IMPORTS: [string, () => DynamicModule][] = [
  ['forRoot', () => KubeEventsModule.forRoot({ reporter, isGlobal: true })],
  ['forRootAsync', () => KubeEventsModule.forRootAsync({ useFactory: () => ({ reporter }), isGlobal: true })],
];

function appModule(kubeEvents: DynamicModule): DynamicModule {
  @Module({ imports: [kubeEvents], providers: [WidgetReconciler] })
  class AppModule {}
  return { module: AppModule };
}

describe('an AppModule that imports KubeEventsModule, in a test without a kubeconfig', () => {
  const saved = { HOME: process.env.HOME, KUBECONFIG: process.env.KUBECONFIG };
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'no-kubeconfig-'));
    process.env.HOME = home;
    delete process.env.KUBECONFIG;
  });
  afterEach(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(home, { recursive: true, force: true });
  });

  it.each(IMPORTS)('fails to start as it is (%s): no kubeconfig', async (_, kubeEvents) => {
    await expect(Test.createTestingModule({ imports: [appModule(kubeEvents())] }).compile()).rejects.toThrow(
      /No kubeconfig found/,
    );
  });

  it.each(IMPORTS)(
    'starts with overrideModule(KubeEventsModule).useModule(KubeEventsTestingModule.forRoot()) (%s)',
    async (_, kubeEvents) => {
      const app = await Test.createTestingModule({ imports: [appModule(kubeEvents())] })
        .overrideModule(KubeEventsModule)
        .useModule(KubeEventsTestingModule.forRoot())
        .compile();
      await app.init();

      await expect(app.get(WidgetReconciler).reconcile(configMap('w1'))).rejects.toThrow('w1 is broken');
      const recorder = app.get(FakeEventRecorder);
      expect(app.get(EventRecorder)).toBe(recorder);
      recorder.expectEvent({ type: 'Warning', reason: 'ReconcileFailed', regarding: 'w1', count: 1 });
      await app.close();
    },
  );

  it('starts with overrideProvider(EventRecorder).useValue(a FakeEventRecorder), its health read from the fake', async () => {
    const recorder = new FakeEventRecorder({ reporter });
    const app = await Test.createTestingModule({ imports: [appModule(IMPORTS[0][1]())] })
      .overrideProvider(EventRecorder)
      .useValue(recorder)
      .compile();
    await app.init();

    await expect(app.get(WidgetReconciler).reconcile(configMap('w2'))).rejects.toThrow('w2 is broken');
    recorder.expectEvent({ type: 'Warning', reason: 'ReconcileFailed', regarding: 'w2', count: 1 });
    expect(app.get(KubeEventsHealth).state()).toMatchObject({ writable: true, permissions: { scope: 'off' } });
    await app.close();
  });
});
