// The package as a stranger gets it: `npm pack` of libs/kube-events, the tarball (not the workspace link)
// installed with a plain `npm install` into a Nest 12 application made as `nest new` makes one (ESM, Vitest),
// outside the workspace. The README's Quick start is built with the app's TypeScript and run against the local
// control plane; the template's own specs, docs/testing.md's unit test and its AppModule test then run under
// Vitest as generated, and the unit tests under Jest with the page's recipe, on a machine without a cluster.
// package-smoke-nest11 does the same in a Nest 11 CommonJS application.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { filesOf } from '../support/documented-files.js';
import { documentedFiles, noCluster, quickStartEvents, runQuickStart } from './support/documented-app.js';
import { GeneratedApp, packLibrary, workspaceVersion } from './support/generated-app.js';
import { Scratch } from './support/library-fixtures.js';
import { nest12Template } from './support/nest-templates.js';

/** The packages the workspace runs that the app installs: the same stack, and the npm cache already holds them. */
const FROM_WORKSPACE = [
  '@kubernetes/client-node',
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/platform-express',
  '@nestjs/testing',
  '@types/node',
  'reflect-metadata',
  'rxjs',
  'typescript',
  'vite',
  'vitest',
  // docs/testing.md's "Nest 12 with Jest": npm install -D jest @swc/jest @swc/core
  'jest',
  '@swc/jest',
  '@swc/core',
];

test("the package README's Quick start is the root README's", async () => {
  expect(await filesOf('libs/kube-events/README.md', 'Quick start')).toEqual(await filesOf('README.md', 'Quick start'));
});

describe('the packed library in a Nest 12 ESM application', () => {
  let workDir: string;
  let app: GeneratedApp;
  let scratch: Scratch;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'kube-events-smoke-'));
    const tarball = await packLibrary(workDir);
    const versions = new Map<string, string>();
    for (const name of FROM_WORKSPACE) versions.set(name, await workspaceVersion(name));
    const template = nest12Template((name) => versions.get(name)!);
    const packageJson = template.packageJson as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    packageJson.dependencies['nestjs-kube-events'] = `file:${tarball}`;
    packageJson.dependencies['@kubernetes/client-node'] = versions.get('@kubernetes/client-node')!;
    for (const name of ['jest', '@swc/jest', '@swc/core']) packageJson.devDependencies[name] = versions.get(name)!;
    app = await GeneratedApp.create(join(workDir, 'app'), { name: 'nest12-app', ...packageJson }, template.files);
    await app.write(await documentedFiles());
    scratch = await Scratch.create(sharedControlPlane().kubeConfig(), 'smoke-e2e');
  }, 120_000);
  afterAll(async () => {
    await scratch?.cleanup();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('installs with a plain npm install', async () => {
    const installed = await app.install();
    expect(installed.stderr).not.toMatch(/ERESOLVE/);
    expect(installed.code).toBe(0);
    // The tarball, not a link to the workspace.
    const library = JSON.parse(
      await readFile(join(app.directory, 'node_modules/nestjs-kube-events/package.json'), 'utf8'),
    ) as { name: string };
    expect(library.name).toBe('nestjs-kube-events');
  }, 600_000);

  it("compiles, with no error from the library's types when skipLibCheck is off and OpenTelemetry absent", async () => {
    expect(await app.tsc(['-p', 'tsconfig.build.json'])).toMatchObject({ code: 0, stdout: '' });
    const checked = await app.tsc(['-p', 'tsconfig.build.json', '--noEmit', '--skipLibCheck', 'false']);
    expect(checked.stdout).not.toMatch(/nestjs-kube-events/);
  }, 120_000);

  it('runs the Quick start against the API server: one Warning counted 3 times, and the Normal it publishes', async () => {
    const { ran, events } = await runQuickStart(app, scratch, 'quick-start-nest12');
    expect(ran.stdout).toContain('attempt 3: data.replicas is missing in quick-start-nest12');
    expect(ran.code).toBe(0);
    expect(events).toHaveLength(2);
    expect(events).toEqual(quickStartEvents('quick-start-nest12'));
  }, 120_000);

  it("runs the template's spec and the documented unit test under the template's Vitest, without a cluster", async () => {
    const tested = await app.script('test', await noCluster(join(workDir, 'home')));
    expect(tested.stdout).toMatch(/Tests\s+2 passed \(2\)/);
  }, 180_000);

  it('runs the AppModule test with overrideModule(KubeEventsModule) under Vitest, without a cluster', async () => {
    const tested = await app.script('test:e2e', await noCluster(join(workDir, 'home')));
    expect(tested.stdout).toMatch(/Tests\s+2 passed \(2\)/);
  }, 180_000);

  it("runs the same unit tests under Jest with the page's recipe", async () => {
    const jestConfig = (await filesOf('docs/testing.md', 'Nest 12 with Jest')).get('jest.config.js');
    await app.write({ 'jest.config.js': jestConfig! });
    const jest = join(app.directory, 'node_modules/jest/bin/jest.js');
    const tested = await app.node(['--experimental-vm-modules', jest], await noCluster(join(workDir, 'home')));
    expect(tested.stderr).toMatch(/Tests:\s+2 passed, 2 total/);
  }, 180_000);
});
