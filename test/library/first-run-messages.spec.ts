import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { Injectable, Logger, Module, SetMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, KubeEventsModule, PublishesFailures } from 'nestjs-kube-events';
import { FakeEventRecorder, KubeEventsTestingModule } from 'nestjs-kube-events/testing';
import { loadDefaultKubeConfig } from '../../libs/kube-events/src/api/default-kube-config.js';
import { assertSupportedNode, isAtLeast } from '../../libs/kube-events/src/runtime-check.js';
import { muteLogger } from '../support/logged-lines.js';

// The messages a new user meets first, each saying what is wrong and what to do.

const widget: KubernetesObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'default', uid: 'uid-w1' },
};

/** A KubeConfig naming a server that is never contacted. */
function unusedKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser(
    { name: 'unused', server: 'https://127.0.0.1:1', skipTLSVerify: false },
    { name: 'user' },
  );
  return kubeConfig;
}

const inactiveWarnings = (warn: jest.SpiedFunction<Logger['warn']>) =>
  warn.mock.calls.filter(([message]) => String(message).includes('is not active'));

afterEach(() => jest.restoreAllMocks());

describe('reporter given as a string', () => {
  it('says reporter must be an object and shows the fix', async () => {
    const compiling = Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({
          reporter: 'example.com/widget-controller' as never,
          kubeConfig: unusedKubeConfig(),
        }),
      ],
    }).compile();
    await expect(compiling).rejects.toThrow(
      'KubeEventsModule: invalid option reporter: reporter must be an object { controller, instance? }, got the string ' +
        `"example.com/widget-controller": write reporter: { controller: 'example.com/widget-controller' }.`,
    );
  });
});

describe('reporter.instance from an empty POD_NAME', () => {
  it('counts as unset: the instance is the controller name', async () => {
    const previous = process.env.POD_NAME;
    process.env.POD_NAME = '';
    try {
      const app = await Test.createTestingModule({
        imports: [
          KubeEventsModule.forRoot({
            reporter: { controller: 'example.com/widget-controller', instance: process.env.POD_NAME },
            kubeConfig: unusedKubeConfig(),
          }),
        ],
      }).compile();
      expect(app.get(EventRecorder).reporter).toEqual({
        controller: 'example.com/widget-controller',
        instance: 'example.com/widget-controller',
      });
      await app.close();
    } finally {
      if (previous === undefined) delete process.env.POD_NAME;
      else process.env.POD_NAME = previous;
    }
  });
});

describe('no kubeconfig at all', () => {
  const saved = {
    HOME: process.env.HOME,
    KUBECONFIG: process.env.KUBECONFIG,
    KUBERNETES_SERVICE_HOST: process.env.KUBERNETES_SERVICE_HOST,
  };
  let home: string;
  let emptyDir: string;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'kube-events-home-'));
    emptyDir = mkdtempSync(join(tmpdir(), 'kube-events-kubeconfig-'));
    process.env.HOME = home;
    delete process.env.KUBERNETES_SERVICE_HOST;
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(home, { recursive: true, force: true });
    rmSync(emptyDir, { recursive: true, force: true });
  });

  it('fails start-up naming where it looked, with $KUBECONFIG unset, and what to pass', async () => {
    delete process.env.KUBECONFIG;
    const message = (() => {
      try {
        loadDefaultKubeConfig();
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('loadDefaultKubeConfig() did not throw');
    })();
    expect(message).toContain(
      'No kubeconfig found: looked in /var/run/secrets/kubernetes.io/serviceaccount/token (in-cluster service account, ' +
        `$KUBERNETES_SERVICE_HOST unset), $KUBECONFIG (unset), ${join(home, '.kube', 'config')}; ` +
        'pass kubeConfig to KubeEventsModule.forRoot, or set $KUBECONFIG to a kubeconfig file, or run in a pod',
    );
    const compiling = Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' } })],
    }).compile();
    await expect(compiling).rejects.toThrow(/^No kubeconfig found: looked in /);
  });

  it('shows $KUBECONFIG when it names no kubeconfig file', () => {
    process.env.KUBECONFIG = emptyDir;
    expect(() => loadDefaultKubeConfig()).toThrow(
      `$KUBECONFIG (${JSON.stringify(emptyDir)}: no kubeconfig file there), ` +
        `${join(home, '.kube', 'config')} (not read while $KUBECONFIG is set); pass kubeConfig to KubeEventsModule.forRoot`,
    );
  });

  it('still loads ~/.kube/config and $KUBECONFIG when they exist', () => {
    delete process.env.KUBECONFIG;
    mkdirSync(join(home, '.kube'));
    writeFileSync(join(home, '.kube', 'config'), unusedKubeConfig().exportConfig());
    expect(loadDefaultKubeConfig().getCurrentCluster()?.server).toBe('https://127.0.0.1:1');
    process.env.KUBECONFIG = join(home, '.kube', 'config');
    expect(loadDefaultKubeConfig().getCurrentCluster()?.server).toBe('https://127.0.0.1:1');
  });
});

describe('KubeEventsModule.forRoot imported in two feature modules', () => {
  it('says to register it once with isGlobal: true, or to name each recorder', async () => {
    @Module({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig: unusedKubeConfig() })],
    })
    class WidgetsModule {}
    @Module({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig: unusedKubeConfig() })],
    })
    class GadgetsModule {}
    const app = await Test.createTestingModule({ imports: [WidgetsModule, GadgetsModule] }).compile();
    const init = app.init();
    await expect(init).rejects.toThrow(/^Two recorders are registered as the default recorder\./);
    await expect(init).rejects.toThrow(/import it once, in the root module, with isGlobal: true/);
    await expect(init).rejects.toThrow(
      /give each KubeEventsModule\.forRoot \(or KubeEventsTestingModule\.forRoot\) its own name/,
    );
  });
});

describe('@PublishesFailures without an active module', () => {
  it('warns once, naming the method, when KubeEventsModule is not imported, and keeps the method as it was', async () => {
    const warn = muteLogger('warn');
    @Injectable()
    class NoModuleReconciler {
      readonly seen: unknown[] = [];
      @PublishesFailures()
      @SetMetadata('audit', 'reconcile')
      reconcile(object: KubernetesObject, attempt: number): string {
        this.seen.push(this, object, attempt);
        return `synced ${attempt}`;
      }
    }
    const app = await Test.createTestingModule({ providers: [NoModuleReconciler] }).compile();
    await app.init();
    const reconciler = app.get(NoModuleReconciler);
    expect(reconciler.reconcile(widget, 1)).toBe('synced 1');
    expect(reconciler.reconcile(widget, 2)).toBe('synced 2');
    expect(reconciler.seen).toEqual([reconciler, widget, 1, reconciler, widget, 2]);
    expect(reconciler.reconcile.name).toBe('reconcile');
    expect(Reflect.getMetadata('audit', reconciler.reconcile)).toBe('reconcile');
    expect(inactiveWarnings(warn)).toEqual([
      [
        '@PublishesFailures on NoModuleReconciler.reconcile is not active: its failures are not published. Import ' +
          'KubeEventsModule.forRoot(…) (or KubeEventsTestingModule.forRoot() in tests) in the application, let Nest ' +
          'create the provider, and call app.init() in tests: the module connects decorated methods to their recorder when the application initialises.',
      ],
    ]);
    await app.close();
  });

  it('does not warn when the module is imported and the application initialised', async () => {
    const warn = muteLogger('warn');
    @Injectable()
    class ImportedReconciler {
      @PublishesFailures()
      async reconcile(_object: KubernetesObject): Promise<void> {
        throw new Error('source missing');
      }
    }
    const app = await Test.createTestingModule({
      imports: [KubeEventsTestingModule.forRoot()],
      providers: [ImportedReconciler],
    }).compile();
    await app.init();
    await expect(app.get(ImportedReconciler).reconcile(widget)).rejects.toThrow('source missing');
    app.get(FakeEventRecorder).expectEvent({ reason: 'ReconcileFailed', note: 'source missing', count: 1 });
    expect(inactiveWarnings(warn)).toEqual([]);
    await app.close();
  });

  it('does not warn when another decorator wraps the method above it', async () => {
    const warn = muteLogger('warn');
    const Traced = (): MethodDecorator => (_target, _key, descriptor) => {
      const inner = descriptor.value as unknown as (...args: unknown[]) => unknown;
      const outer = function (this: unknown, ...args: unknown[]) {
        return inner.apply(this, args);
      };
      for (const key of Reflect.getMetadataKeys(inner))
        Reflect.defineMetadata(key, Reflect.getMetadata(key, inner), outer);
      descriptor.value = outer as typeof descriptor.value;
    };
    @Injectable()
    class TracedReconciler {
      @Traced()
      @PublishesFailures()
      async reconcile(_object: KubernetesObject): Promise<void> {
        throw new Error('traced failure');
      }
    }
    const app = await Test.createTestingModule({
      imports: [KubeEventsTestingModule.forRoot()],
      providers: [TracedReconciler],
    }).compile();
    await app.init();
    await expect(app.get(TracedReconciler).reconcile(widget)).rejects.toThrow('traced failure');
    app.get(FakeEventRecorder).expectEvent({ reason: 'ReconcileFailed', note: 'traced failure' });
    expect(inactiveWarnings(warn)).toEqual([]);
    await app.close();
  });
});

describe('a testing-module spec without app.init()', () => {
  @Injectable()
  class UninitialisedReconciler {
    @PublishesFailures()
    async reconcile(_object: KubernetesObject): Promise<void> {
      throw new Error('boom');
    }
  }

  it('warns that the method is not active, and expectEvent says to call app.init()', async () => {
    const warn = muteLogger('warn');
    const app = await Test.createTestingModule({
      imports: [KubeEventsTestingModule.forRoot()],
      providers: [UninitialisedReconciler],
    }).compile();
    await expect(app.get(UninitialisedReconciler).reconcile(widget)).rejects.toThrow('boom');
    expect(inactiveWarnings(warn)).toHaveLength(1);
    expect(() => app.get(FakeEventRecorder).expectEvent({ reason: 'ReconcileFailed' })).toThrow(
      'Expected an Event matching { reason: "ReconcileFailed" }, but no Event was recorded.\n' +
        'The application was not initialised: call `await app.init()` (explorers connect @PublishesFailures methods to their recorder ' +
        'and subscribe @KubeEventsSink providers on init).',
    );
  });

  it('gives no such hint once the application is initialised, nor for a fake made with new', async () => {
    const app = await Test.createTestingModule({ imports: [KubeEventsTestingModule.forRoot()] }).compile();
    await app.init();
    expect(() => app.get(FakeEventRecorder).expectEvent({ reason: 'ReconcileFailed' })).toThrow(
      /no Event was recorded\.$/,
    );
    await app.close();
    expect(() => new FakeEventRecorder().expectEvent({ reason: 'ReconcileFailed' })).toThrow(
      /no Event was recorded\.$/,
    );
  });
});

describe('Node.js older than 22.19', () => {
  it.each([
    ['20.20.2', false],
    ['22.18.9', false],
    ['22.9.0', false],
    ['21.99.0', false],
    ['22.19.0', true],
    ['22.19.1', true],
    ['22.100.0', true],
    ['23.0.0', true],
    ['24.9.0', true],
    ['v24.9.0', true],
  ])('isAtLeast(%j, "22.19") is %j', (version, expected) => {
    expect(isAtLeast(version, '22.19')).toBe(expected);
  });

  it('throws a message naming the versions and the cause', () => {
    expect(() => assertSupportedNode('20.11.1')).toThrow(
      'nestjs-kube-events needs Node.js 22.19 or newer (this is 20.11.1): @kubernetes/client-node 2.x and undici 8 ' +
        'do not load on older versions. Upgrade Node.js',
    );
    expect(() => assertSupportedNode('22.19.0')).not.toThrow();
  });
});
