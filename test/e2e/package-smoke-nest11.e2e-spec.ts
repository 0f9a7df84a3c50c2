// The packed library in a Nest 11 application, as a newcomer on Nest 11 makes one: `nest new` of @nestjs/cli 11
// (CommonJS, Jest with ts-jest), then a plain `npm install` of the tarball, @kubernetes/client-node and
// @nestjs/terminus 11 beside Nest 11. The README's Quick start is built with the app's TypeScript and run against
// the local control plane; the template's own specs, docs/testing.md's unit test, a terminus health check and the
// page's AppModule test then run with its Nest 11 recipe, on a machine without a cluster.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { jsonOf } from '../support/documented-files.js';
import { documentedFiles, noCluster, quickStartEvents, runQuickStart } from './support/documented-app.js';
import { GeneratedApp, packLibrary, workspaceVersion } from './support/generated-app.js';
import { Scratch } from './support/library-fixtures.js';
import { nest11Template } from './support/nest-templates.js';

/** The health check of the package README's "Health", on @nestjs/terminus 11, with the fake recorder. */
const HEALTH_SPEC = `import { Test } from '@nestjs/testing';
import { HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { KubeEventsHealthIndicator } from 'nestjs-kube-events/terminus';
import { KubeEventsTestingModule } from 'nestjs-kube-events/testing';

describe('KubeEventsHealthIndicator', () => {
  it('reports up to terminus', async () => {
    const app = await Test.createTestingModule({
      imports: [TerminusModule, KubeEventsTestingModule.forRoot()],
      providers: [KubeEventsHealthIndicator],
    }).compile();
    await app.init();
    const kubeEvents = app.get(KubeEventsHealthIndicator);
    const result = await app.get(HealthCheckService).check([() => kubeEvents.isHealthy()]);
    expect(result).toMatchObject({ status: 'ok', info: { 'kube-events': { status: 'up', writable: true } } });
    await app.close();
  });
});
`;

/** The package.json of Nest 11's template with docs/testing.md's "Nest 11 with Jest" merged in. */
async function withNest11Recipe(packageJson: Record<string, unknown>): Promise<Record<string, unknown>> {
  const recipe = (await jsonOf('docs/testing.md', 'Nest 11 with Jest')) as {
    scripts: Record<string, string>;
    jest: Record<string, unknown>;
  };
  return {
    ...packageJson,
    scripts: { ...(packageJson.scripts as object), ...recipe.scripts },
    jest: { ...(packageJson.jest as object), ...recipe.jest },
  };
}

describe('the packed library in a Nest 11 CommonJS application', () => {
  let workDir: string;
  let app: GeneratedApp;
  let scratch: Scratch;
  let moduleNameMapper: unknown;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'kube-events-nest11-'));
    const tarball = await packLibrary(workDir);
    const template = nest11Template();
    const packageJson = await withNest11Recipe(template.packageJson);
    moduleNameMapper = (packageJson.jest as { moduleNameMapper: unknown }).moduleNameMapper;
    (packageJson.dependencies as Record<string, string>)['nestjs-kube-events'] = `file:${tarball}`;
    (packageJson.dependencies as Record<string, string>)['@kubernetes/client-node'] =
      `^${await workspaceVersion('@kubernetes/client-node')}`;
    // The optional peer for a health endpoint, at the version Nest 11 apps run.
    (packageJson.dependencies as Record<string, string>)['@nestjs/terminus'] = '^11.0.0';
    app = await GeneratedApp.create(join(workDir, 'app'), { name: 'nest11-app', ...packageJson }, template.files);
    await app.write(await documentedFiles());
    await app.write({ 'src/health.spec.ts': HEALTH_SPEC });
    // "and the same moduleNameMapper in test/jest-e2e.json"
    const e2eConfig = JSON.parse(await readFile(join(app.directory, 'test/jest-e2e.json'), 'utf8')) as object;
    await app.write({ 'test/jest-e2e.json': JSON.stringify({ ...e2eConfig, moduleNameMapper }, null, 2) });
    scratch = await Scratch.create(sharedControlPlane().kubeConfig(), 'nest11-e2e');
  }, 120_000);
  afterAll(async () => {
    await scratch?.cleanup();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('installs beside Nest 11 with a plain npm install', async () => {
    const installed = await app.install();
    expect(installed.stderr).not.toMatch(/ERESOLVE/);
    expect(installed.code).toBe(0);
    for (const name of ['@nestjs/common', '@nestjs/core', '@nestjs/terminus']) {
      const installed = JSON.parse(
        await readFile(join(app.directory, 'node_modules', name, 'package.json'), 'utf8'),
      ) as { version: string };
      expect(installed.version).toMatch(/^11\./);
    }
  }, 600_000);

  it("compiles, with no error from the library's types when skipLibCheck is off and OpenTelemetry absent", async () => {
    expect(await app.tsc(['-p', 'tsconfig.build.json'])).toMatchObject({ code: 0, stdout: '' });
    const checked = await app.tsc(['-p', 'tsconfig.build.json', '--noEmit', '--skipLibCheck', 'false']);
    expect(checked.stdout).not.toMatch(/nestjs-kube-events/);
  }, 120_000);

  it('runs the Quick start against the API server: one Warning counted 3 times, and the Normal it publishes', async () => {
    const { ran, events } = await runQuickStart(app, scratch, 'quick-start-nest11');
    expect(ran.stdout).toContain('attempt 3: data.replicas is missing in quick-start-nest11');
    expect(ran.code).toBe(0);
    expect(events).toHaveLength(2);
    expect(events).toEqual(quickStartEvents('quick-start-nest11'));
  }, 120_000);

  it("runs the template's spec, the documented unit test and a terminus 11 health check with the page's recipe, without a cluster", async () => {
    const tested = await app.script('test', await noCluster(join(workDir, 'home')));
    expect(tested.stderr).toMatch(/Tests:\s+3 passed, 3 total/);
  }, 180_000);

  it('runs the AppModule test with overrideModule(KubeEventsModule), without a cluster', async () => {
    const tested = await app.script('test:e2e', await noCluster(join(workDir, 'home')));
    expect(tested.stderr).toMatch(/Tests:\s+2 passed, 2 total/);
  }, 180_000);
});
