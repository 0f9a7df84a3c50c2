// A controller's Events declared once (`defineEventCatalog`), published through the recorder and
// `@PublishesFailures`, and rendered by the package's command for the controller's docs.
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  EventRecorder,
  KubeEventsModule,
  PublishesFailures,
  defineEventCatalog,
  describeError,
} from 'nestjs-kube-events';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap } from '../support/objects.js';

const widgetEvents = defineEventCatalog({
  checkFailed: {
    reason: 'CheckFailed',
    type: 'Warning',
    action: 'Check',
    when: 'a check of the widget fails',
    whatToDo: 'read the note',
    note: (error: unknown) => `check failed: ${describeError(error)}`,
  },
  checked: { reason: 'Checked', type: 'Normal', action: 'Check', when: 'a check passes', note: 'all good' },
});

@Injectable()
class WidgetChecker {
  @PublishesFailures({ event: widgetEvents.checkFailed })
  async check(_widget: ReturnType<typeof configMap>): Promise<void> {
    throw new Error('the widget is upside down');
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMMAND = join(ROOT, 'libs/kube-events/dist/cli/nestjs-kube-events.js');
const SAMPLE = join(ROOT, 'apps/sample-operator');
const run = promisify(execFile);

describe('an Event catalog', () => {
  let server: FakeApiServer;
  let app: TestingModule;

  beforeEach(async () => {
    server = await FakeApiServer.start();
    app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig: server.kubeConfig() })],
      providers: [WidgetChecker],
    }).compile();
    await app.init();
  });
  afterEach(async () => {
    await app.close();
    await server.close();
  });

  it('publishes its typed events through the recorder and @PublishesFailures', async () => {
    const widget = configMap('w1');
    await app.get(EventRecorder).publish(widget, widgetEvents.checked());
    await expect(app.get(WidgetChecker).check(widget)).rejects.toThrow('the widget is upside down');

    expect(server.events().map(({ type, reason, action, note }) => ({ type, reason, action, note }))).toEqual([
      { type: 'Normal', reason: 'Checked', action: 'Check', note: 'all good' },
      { type: 'Warning', reason: 'CheckFailed', action: 'Check', note: 'check failed: the widget is upside down' },
    ]);
  });

  it('refuses, when a method is decorated, a Normal event or one given with its own reason', () => {
    expect(() => PublishesFailures({ event: widgetEvents.checked })).toThrow(
      '@PublishesFailures: event Checked is a Normal Event; a failed reconcile publishes a Warning.',
    );
    expect(() => PublishesFailures({ event: widgetEvents.checkFailed, reason: 'Other' })).toThrow(
      '@PublishesFailures: event CheckFailed gives the reason, action and note; reason cannot be given too.',
    );
  });
});

describe('nestjs-kube-events catalog', () => {
  it("keeps the sample operator's docs/events.md what its catalog renders (CI fails on a stale page)", async () => {
    await expect(
      run('npm', ['run', '--silent', 'events:check', '-w', 'sample-operator'], { cwd: ROOT }),
    ).resolves.toMatchObject({ stderr: '' });
  }, 30_000);

  it('prints the page, and with --check fails on a stale file, saying how to write it', async () => {
    const module = join(SAMPLE, 'dist/config-mirror/config-mirror.events.js');
    const printed = await run(process.execPath, [
      COMMAND,
      'catalog',
      module,
      '--title',
      'Events of the sample operator',
    ]);
    expect(printed.stdout).toContain('| `ReconcileFailed` | Warning | `Reconcile` |');

    const dir = await mkdtemp(join(tmpdir(), 'catalog-'));
    const stale = join(dir, 'events.md');
    await copyFile(join(SAMPLE, 'docs/events.md'), stale);
    await writeFile(stale, (await readFile(stale, 'utf8')).replace('`Synced`', '`Copied`'));
    const checked = await run(process.execPath, [COMMAND, 'catalog', module, '--out', stale, '--check']).then(
      () => ({ code: 0, stderr: '' }),
      (error: unknown) => {
        const { code, stderr } = error as { code: number; stderr: string };
        return { code, stderr };
      },
    );
    expect(checked).toEqual({
      code: 1,
      stderr: `${stale} is not what the Event catalog in ${module} renders: run the same command without --check to write it.\n`,
    });
  }, 30_000);

  it('writes --out into a folder it makes, as docs/events.md in an app that has no docs/ yet', async () => {
    const module = join(SAMPLE, 'dist/config-mirror/config-mirror.events.js');
    const app = await mkdtemp(join(tmpdir(), 'catalog-app-'));
    await run(process.execPath, [COMMAND, 'catalog', module, '--out', 'docs/events.md'], { cwd: app });
    expect(await readFile(join(app, 'docs/events.md'), 'utf8')).toContain(
      '| `ReconcileFailed` | Warning | `Reconcile` |',
    );
    await rm(app, { recursive: true, force: true });
  }, 30_000);

  it('says why a module could not be loaded without repeating a credential its error quotes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'catalog-'));
    const module = join(dir, 'events.mjs');
    await writeFile(
      module,
      "throw new Error('cannot reach https://deployer:s3cr3t-Pa55word@registry.example.com/v2/: ' + 'x'.repeat(20000));\n",
    );
    const failed = await run(process.execPath, [COMMAND, 'catalog', module]).catch((error: unknown) => error);
    const { code, stderr } = failed as { code: number; stderr: string };
    expect(code).toBe(1);
    expect(stderr).toMatch(/^nestjs-kube-events: cannot reach https:\/\/\[redacted\]@registry\.example\.com/);
    expect(stderr).not.toContain('s3cr3t-Pa55word');
    expect(stderr.length).toBeLessThan(2_200);
  });

  it('says what it found when the module exports no catalog', async () => {
    const module = join(SAMPLE, 'dist/config-mirror/config-mirror.messages.js');
    const failed = await run(process.execPath, [COMMAND, 'catalog', module]).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 2, stderr: `${module} exports no Event catalog.\n` });
  });
});
