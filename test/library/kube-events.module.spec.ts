import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  EventRecorder,
  getEventRecorderToken,
  InjectEventRecorder,
  KubeEventsModule,
  type KubeEventsModuleOptions,
  type KubeEventsOptionsFactory,
} from 'nestjs-kube-events';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap } from '../support/objects.js';

const appConfigMap = configMap();
const synced = { type: 'Normal' as const, reason: 'Synced', action: 'Sync' };

describe('KubeEventsModule', () => {
  let server: FakeApiServer;
  let kubeConfig: KubeConfig;

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeConfig = server.kubeConfig();
  });
  afterEach(async () => {
    await server.close();
  });

  it('forRoot provides the recorder by its class', async () => {
    const app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets', instance: 'pod-0' }, kubeConfig })],
    }).compile();
    const recorder = app.get(EventRecorder);
    expect(recorder).toBeInstanceOf(EventRecorder);
    expect(recorder.reporter).toEqual({ controller: 'widgets', instance: 'pod-0' });
    await recorder.publish(appConfigMap, synced);
    expect(server.events()[0].reportingController).toBe('widgets');
    await app.close();
  });

  it('loads the default KubeConfig from $KUBECONFIG when none is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-events-'));
    const path = join(dir, 'config');
    writeFileSync(path, kubeConfig.exportConfig());
    const previous = process.env.KUBECONFIG;
    process.env.KUBECONFIG = path;
    try {
      const app = await Test.createTestingModule({
        imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' } })],
      }).compile();
      await app.get(EventRecorder).publish(appConfigMap, synced);
      expect(server.events()).toHaveLength(1);
      await app.close();
    } finally {
      if (previous === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = previous;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('applies timeout and seriesWindow', async () => {
    const app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig, timeout: 1234 })],
    }).compile();
    expect(app.get(EventRecorder).timeout).toBe(1234);
    await app.close();
  });

  it.each([
    ['off', false as const, 'Authorization: Bearer abcdefghijkl'],
    ['a function of its own', (note: string) => note.replace(/Bearer \S+/, 'Bearer ***'), 'Authorization: Bearer ***'],
  ])('applies redactNotes %s, not the default redaction', async (_, redactNotes, written) => {
    const app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig, redactNotes })],
    }).compile();
    await app.get(EventRecorder).publish(appConfigMap, { ...synced, note: 'Authorization: Bearer abcdefghijkl' });
    expect(server.events()[0].note).toBe(written);
    await app.close();
  });

  it('forRootAsync takes options from a factory with injected dependencies', async () => {
    const SETTINGS = 'SETTINGS';
    @Module({ providers: [{ provide: SETTINGS, useValue: { controller: 'from-config' } }], exports: [SETTINGS] })
    class SettingsModule {}

    const app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRootAsync({
          imports: [SettingsModule],
          inject: [SETTINGS],
          useFactory: async (settings: { controller: string }) => ({ reporter: settings, kubeConfig }),
        }),
      ],
    }).compile();
    expect(app.get(EventRecorder).reporter.controller).toBe('from-config');
    await app.close();
  });

  it('forRootAsync takes options from a class', async () => {
    @Injectable()
    class EventsConfig implements KubeEventsOptionsFactory {
      createKubeEventsOptions(): KubeEventsModuleOptions {
        return { reporter: { controller: 'from-class' }, kubeConfig };
      }
    }
    const app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRootAsync({ useClass: EventsConfig })],
    }).compile();
    expect(app.get(EventRecorder).reporter.controller).toBe('from-class');
    await app.close();
  });

  it('forRootAsync takes options from an existing provider', async () => {
    @Injectable()
    class SharedConfig implements KubeEventsOptionsFactory {
      createKubeEventsOptions(): KubeEventsModuleOptions {
        return { reporter: { controller: 'from-existing' }, kubeConfig };
      }
    }
    @Module({ providers: [SharedConfig], exports: [SharedConfig] })
    class ConfigModule {}

    const app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRootAsync({ imports: [ConfigModule], useExisting: SharedConfig })],
    }).compile();
    expect(app.get(EventRecorder).reporter.controller).toBe('from-existing');
    await app.close();
  });

  it('fails start-up with a message naming the bad option', async () => {
    const compiling = Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'Widget Controller' }, kubeConfig })],
    }).compile();
    await expect(compiling).rejects.toThrow(/reporter\.controller must be a qualified name/);
  });

  it('fails start-up of forRootAsync naming the bad option', async () => {
    const compiling = Test.createTestingModule({
      imports: [
        KubeEventsModule.forRootAsync({
          useFactory: () => ({ reporter: { controller: 'ok' }, timeout: -5, kubeConfig }),
        }),
      ],
    }).compile();
    await expect(compiling).rejects.toThrow(/invalid option timeout/);
  });

  it('refuses a recorder name that is not a non-empty string, naming the option', () => {
    for (const name of ['', 7]) {
      expect(() =>
        KubeEventsModule.forRoot({ name: name as string, reporter: { controller: 'ok' }, kubeConfig }),
      ).toThrow(/invalid option name: name must be a non-empty string when given/);
    }
  });

  it('isGlobal makes the recorder injectable in modules that do not import it', async () => {
    @Injectable()
    class Reconciler {
      constructor(readonly recorder: EventRecorder) {}
    }
    @Module({ providers: [Reconciler], exports: [Reconciler] })
    class FeatureModule {}

    const app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig, isGlobal: true }),
        FeatureModule,
      ],
    }).compile();
    expect(app.get(Reconciler).recorder).toBe(app.get(EventRecorder));
    await app.close();
  });

  it('fails start-up when two recorders share a name', async () => {
    @Module({ imports: [KubeEventsModule.forRoot({ reporter: { controller: 'a-ctl' }, kubeConfig })] })
    class FeatureA {}
    @Module({ imports: [KubeEventsModule.forRoot({ reporter: { controller: 'b-ctl' }, kubeConfig })] })
    class FeatureB {}
    const module = await Test.createTestingModule({ imports: [FeatureA, FeatureB] }).compile();
    await expect(module.init()).rejects.toThrow(/Two recorders are registered as the default recorder/);
  });

  it('registers several recorders, each with its own reporter, injectable by name', async () => {
    @Injectable()
    class TwoControllers {
      constructor(
        readonly widgets: EventRecorder,
        @InjectEventRecorder('billing') readonly billing: EventRecorder,
      ) {}
    }
    const app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig }),
        KubeEventsModule.forRoot({ name: 'billing', reporter: { controller: 'billing' }, kubeConfig }),
      ],
      providers: [TwoControllers],
    }).compile();
    const both = app.get(TwoControllers);
    expect(both.widgets).not.toBe(both.billing);
    expect(app.get(getEventRecorderToken('billing'))).toBe(both.billing);
    await both.widgets.publish(appConfigMap, synced);
    await both.billing.publish(appConfigMap, synced);
    expect(server.events().map((event) => event.reportingController)).toEqual(['widgets', 'billing']);
    await app.close();
  });
});
