// The package as a stranger gets it: `npm pack` of libs/kube-events, the
// tarball (not the workspace link) installed into fresh Nest 12 applications
// outside the workspace, one ESM and one CommonJS (`module: commonjs`), each
// compiled with tsc, started against the local control plane to publish a
// failure through @PublishesFailures, and unit-tested with the
// `nestjs-kube-events/testing` export. The README's Quick start is built and
// run there too, from its own files, against the same control plane.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { Scratch } from './support/library-fixtures.js';
import { filesOf } from '../support/documented-files.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LIBRARY = join(ROOT, 'libs/kube-events');
const NODE = process.execPath;

/** The versions the workspace itself runs, so that the smoke apps test the same stack. */
async function installedVersion(name: string): Promise<string> {
  return (JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
}

const RECONCILER = `
import { Injectable } from '@nestjs/common';
import type { KubernetesObject } from '@kubernetes/client-node';
import { PublishesFailures } from 'nestjs-kube-events';

@Injectable()
export class ConfigMapReconciler {
  @PublishesFailures({ reason: 'SmokeFailed' })
  async reconcile(object: KubernetesObject): Promise<void> {
    throw new Error(\`smoke test failure for \${object.metadata?.name}\`);
  }
}
`;

const MAIN = (imports: string) => `
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeEventsModule } from 'nestjs-kube-events';
import { ConfigMapReconciler } from '${imports}';

const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(process.env.SMOKE_KUBECONFIG!);

@Module({
  imports: [KubeEventsModule.forRoot({ reporter: { controller: 'smoke.example.com/configmaps' }, kubeConfig })],
  providers: [ConfigMapReconciler],
})
class AppModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'warn'] });
  const object = JSON.parse(process.env.SMOKE_OBJECT!);
  await app.get(ConfigMapReconciler).reconcile(object).catch((error: Error) => console.log(\`reconcile failed: \${error.message}\`));
  await app.close();
}
void main();
`;

const UNIT_TEST = (imports: string) => `
import 'reflect-metadata';
import { test } from 'node:test';
import { Test } from '@nestjs/testing';
import { FakeEventRecorder, KubeEventsTestingModule } from 'nestjs-kube-events/testing';
import { ConfigMapReconciler } from '${imports}';

test('a failed reconcile is recorded as a Warning Event', async () => {
  const app = await Test.createTestingModule({ imports: [KubeEventsTestingModule.forRoot()], providers: [ConfigMapReconciler] }).compile();
  await app.init();
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unit', namespace: 'default', uid: 'uid-unit' } };
  await app.get(ConfigMapReconciler).reconcile(object).catch(() => undefined);
  app.get(FakeEventRecorder).expectEvent({ type: 'Warning', reason: 'SmokeFailed', regarding: 'unit', note: 'smoke test failure for unit', count: 1 });
  await app.close();
});
`;

/**
 * The unit test docs/testing.md gives, run under Vitest and then under Jest
 * as its sections set them up, in the app that holds the Quick start's
 * reconciler.
 */
async function runDocumentedTestRunners(app: string): Promise<void> {
  const vitest = await filesOf('docs/testing.md', 'With Vitest');
  const spec = vitest.get('src/config-map.reconciler.spec.ts')!;
  await writeFile(join(app, 'vitest.config.ts'), vitest.get('vitest.config.ts')!);
  await writeFile(join(app, 'src/quick-start/config-map.reconciler.spec.ts'), spec);
  const plain = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const underVitest = await run(NODE, [join(app, 'node_modules/vitest/vitest.mjs'), 'run'], {
    cwd: app,
    env: plain,
    timeout: 120_000,
  });
  expect(underVitest.stdout).toMatch(/Tests\s+1 passed/);

  const jest = await filesOf('docs/testing.md', 'With Jest');
  await writeFile(join(app, 'jest.config.js'), jest.get('jest.config.js')!);
  // "The spec is the one above, with import { describe, expect, it } from '@jest/globals'."
  await writeFile(
    join(app, 'src/quick-start/config-map.reconciler.spec.ts'),
    spec.replace("from 'vitest'", "from '@jest/globals'"),
  );
  const underJest = await run(NODE, ['--experimental-vm-modules', join(app, 'node_modules/jest/bin/jest.js')], {
    cwd: app,
    env: plain,
    timeout: 120_000,
  });
  expect(underJest.stderr).toMatch(/Tests:\s+1 passed, 1 total/);
}

interface Flavour {
  name: 'esm' | 'commonjs';
  packageType: 'module' | 'commonjs';
  compilerOptions: Record<string, unknown>;
  /** How the app's own files import each other. */
  reconcilerImport: string;
}

const FLAVOURS: Flavour[] = [
  {
    name: 'esm',
    packageType: 'module',
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' },
    reconcilerImport: './reconciler.js',
  },
  {
    name: 'commonjs',
    packageType: 'commonjs',
    compilerOptions: { module: 'commonjs', moduleResolution: 'node10', ignoreDeprecations: '6.0' },
    reconcilerImport: './reconciler',
  },
];

test("the package README's Quick start is the root README's", async () => {
  expect(await filesOf('libs/kube-events/README.md', 'Quick start')).toEqual(await filesOf('README.md', 'Quick start'));
});

describe('the packed library in a fresh Nest application', () => {
  let workDir: string;
  let tarball: string;
  let scratch: Scratch;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'kube-events-smoke-'));
    const packed = await run('npm', ['pack', '--pack-destination', workDir, '--json'], { cwd: LIBRARY });
    tarball = join(workDir, (JSON.parse(packed.stdout) as { filename: string }[])[0].filename);
    scratch = await Scratch.create(sharedControlPlane().kubeConfig(), 'smoke-e2e');
  }, 120_000);
  afterAll(async () => {
    await scratch?.cleanup();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it.each(FLAVOURS)(
    'compiles, publishes a failure against the API server and unit-tests with /testing ($name)',
    async (flavour) => {
      const app = join(workDir, flavour.name);
      await mkdir(join(app, 'src'), { recursive: true });
      const dependencies: Record<string, string> = { 'nestjs-kube-events': `file:${tarball}` };
      for (const name of [
        '@nestjs/common',
        '@nestjs/core',
        '@nestjs/testing',
        '@kubernetes/client-node',
        'reflect-metadata',
        'rxjs',
        'typescript',
        '@types/node',
        // The test runners docs/testing.md sets up (ESM only: @nestjs/testing is).
        ...(flavour.name === 'esm'
          ? ['vitest', 'unplugin-swc', '@swc/core', 'jest', '@jest/globals', '@swc/jest']
          : []),
      ]) {
        dependencies[name] = await installedVersion(name);
      }
      await writeFile(
        join(app, 'package.json'),
        JSON.stringify(
          { name: `smoke-${flavour.name}`, private: true, type: flavour.packageType, dependencies },
          null,
          2,
        ),
      );
      await writeFile(
        join(app, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            ...flavour.compilerOptions,
            target: 'es2022',
            outDir: 'dist',
            rootDir: 'src',
            strict: true,
            experimentalDecorators: true,
            emitDecoratorMetadata: true,
            skipLibCheck: true,
            types: ['node'],
          },
          include: ['src'],
        }),
      );
      await writeFile(join(app, 'src/reconciler.ts'), RECONCILER);
      await writeFile(join(app, 'src/main.ts'), MAIN(flavour.reconcilerImport));
      await writeFile(join(app, 'src/reconciler.test.ts'), UNIT_TEST(flavour.reconcilerImport));
      // The Quick start as pasted, compiled with the rest and run below.
      await mkdir(join(app, 'src/quick-start'), { recursive: true });
      for (const [path, code] of await filesOf('README.md', 'Quick start'))
        await writeFile(join(app, 'src/quick-start', path.replace(/^src\//, '')), code);

      await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
        cwd: app,
        timeout: 300_000,
      });
      // The tarball, not a link to the workspace.
      const installed = JSON.parse(
        await readFile(join(app, 'node_modules/nestjs-kube-events/package.json'), 'utf8'),
      ) as { name: string };
      expect(installed.name).toBe('nestjs-kube-events');

      const compiled = await run(NODE, [join(app, 'node_modules/typescript/bin/tsc'), '-p', app]).catch(
        (error: unknown) => error as { stdout: string },
      );
      expect(compiled.stdout).toBe('');

      const object = await scratch.configMap(`smoke-${flavour.name}`);
      const started = await run(NODE, [join(app, 'dist/main.js')], {
        cwd: app,
        env: {
          ...process.env,
          SMOKE_KUBECONFIG: sharedControlPlane().kubeconfigPath,
          SMOKE_OBJECT: JSON.stringify(object),
        },
        timeout: 60_000,
      });
      expect(started.stdout).toContain(`reconcile failed: smoke test failure for smoke-${flavour.name}`);
      const [event, ...others] = await scratch.eventsAbout(object);
      expect(others).toHaveLength(0);
      expect(event).toMatchObject({
        type: 'Warning',
        reason: 'SmokeFailed',
        action: 'Reconcile',
        note: `smoke test failure for smoke-${flavour.name}`,
        reportingController: 'smoke.example.com/configmaps',
      });

      // The Quick start, run as it says, against a ConfigMap that lacks data.replicas.
      const checked = await scratch.configMap(`quick-start-${flavour.name}`);
      const quickStart = await run(
        NODE,
        [join(app, 'dist/quick-start/main.js'), checked.metadata!.namespace!, checked.metadata!.name!],
        { cwd: app, env: { ...process.env, KUBECONFIG: sharedControlPlane().kubeconfigPath }, timeout: 60_000 },
      );
      expect(quickStart.stdout).toContain(`attempt 3: data.replicas is missing in quick-start-${flavour.name}`);
      const folded = await scratch.eventsAbout(checked);
      expect(folded).toHaveLength(1);
      expect(folded[0]).toMatchObject({
        type: 'Warning',
        reason: 'ReconcileFailed',
        note: `data.replicas is missing in quick-start-${flavour.name}`,
        reportingController: 'example.com/config-checker',
        series: { count: 3 },
      });

      if (flavour.name === 'esm') await runDocumentedTestRunners(app);

      const tested = await run(NODE, ['--test', '--test-reporter=tap', join(app, 'dist/reconciler.test.js')], {
        cwd: app,
        timeout: 60_000,
      });
      expect(tested.stdout).toMatch(/# pass 1\b/);
      expect(tested.stdout).toMatch(/# fail 0\b/);
    },
    400_000,
  );
});
