// A kubeconfig's exec credential plugin that hangs, fails or cannot be
// started: it runs once for all the writes waiting for it, its failure is a
// credential failure (not an unreachable server) that holds every write back
// for a while and loses nothing, and what it printed stays out of every
// message.
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  EventRecorder,
  PublishCredentialError,
  PublishTimeoutError,
  PublishUnreachableError,
  type PublishOutcome,
} from 'nestjs-kube-events';
import { EventsApi } from '../../libs/kube-events/src/api/events-api.js';
import { LogEventSink } from '../../libs/kube-events/src/sinks/log-event.sink.js';
import { FakeClock } from 'nestjs-kube-events/testing';
import { lastProbe } from '../support/eventually.js';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { whileAdvancing } from '../support/fake-time.js';
import { captureLogLines } from '../support/logged-lines.js';
import { configMap, syncFailed } from '../support/objects.js';

/**
 * Writes its pid to RUNS_FILE, then hangs, fails as a refresh that went wrong, or prints a token, as PLUGIN_MODE
 * says; once FIXED_FILE exists, it prints a token whatever the mode.
 */
const PLUGIN = `
import { appendFileSync, existsSync } from 'node:fs';
appendFileSync(process.env.RUNS_FILE, process.pid + '\\n');
const mode = existsSync(process.env.FIXED_FILE) ? 'token' : process.env.PLUGIN_MODE;
if (mode === 'hang') setInterval(() => undefined, 60_000);
if (mode === 'fail') {
  process.stderr.write('refresh failed for exec-secret-refresh-token=RT123\\n');
  process.stdout.write('{"partial": "eyJhbGciOiJSUzI1NiJ9.secret-output"');
  process.exit(3);
}
if (mode === 'garbage') process.stdout.write('not json: eyJhbGciOiJSUzI1NiJ9.secret-output');
// Output past the library's bound (2 MiB), a few MiB of it: not JSON, a token no server accepts, or on stderr.
const FLOOD = 6 * 1024 * 1024;
if (mode === 'flood') process.stdout.write('not json: secret-output '.repeat(FLOOD / 24));
if (mode === 'flood-stderr') process.stderr.write('debug: secret-output '.repeat(FLOOD / 21));
if (mode === 'huge-token') {
  process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'a'.repeat(FLOOD) } }));
}
if (mode === 'broken-token') {
  process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'plugin-token\\nsecret-output' } }));
}
if (mode === 'token') {
  process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'plugin-token' } }));
}
`;
const SECRETS = ['RT123', 'secret-output', 'eyJhbGciOiJSUzI1NiJ9'];

/**
 * A shell-script plugin: writes its pid to RUNS_FILE; its first HANGING_RUNS runs start a child that hangs
 * holding the script's pipes (no `exec`), the child's pid in CHILDREN_FILE; later runs print a token. With
 * LAUNCHER=setsid, the child leaves the script's process group.
 */
const SHELL_PLUGIN = `
echo $$ >> "$RUNS_FILE"
if [ "$(wc -l < "$RUNS_FILE")" -le "$HANGING_RUNS" ]; then
  $LAUNCHER sh -c 'echo $$ >> "$CHILDREN_FILE"; exec sleep 1000'
fi
printf '%s' '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"plugin-token"}}'
`;

/** Whether the process runs: one killed but not yet reaped by its new parent (a zombie) has ended. */
const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return process.platform !== 'linux';
  }
};

// Plugins are node processes: starting them takes a while on a loaded machine.
jest.setTimeout(20_000);

describe('exec credential plugins', () => {
  let server: FakeApiServer;
  let dir: string;
  let runsFile: string;
  let childrenFile: string;
  let fixedFile: string;
  let plugin: string;
  const recorders: EventRecorder[] = [];
  /** The fake clocks of the recorders that have one: moved while they shut down, which retries until their timeout. */
  const clocks: FakeClock[] = [];
  let outcomes: PublishOutcome[];
  let logged: string[];

  const kubeConfigWith = (mode: string, command = process.execPath): KubeConfig =>
    server.kubeConfig({
      token: undefined,
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command,
        args: [plugin],
        env: [
          { name: 'RUNS_FILE', value: runsFile },
          { name: 'FIXED_FILE', value: fixedFile },
          { name: 'PLUGIN_MODE', value: mode },
        ],
        interactiveMode: 'Never',
      },
    });
  const recorderWith = (kubeConfig: KubeConfig, timeout: number, api?: EventsApi, clock?: FakeClock) => {
    const recorder = new EventRecorder({ reporter: { controller: 'widgets' }, kubeConfig, timeout, clock }, api);
    if (clock) clocks.push(clock);
    const sink = new LogEventSink();
    recorder.outcomes$.subscribe((outcome) => {
      outcomes.push(outcome);
      sink.handle(outcome);
    });
    recorders.push(recorder);
    return recorder;
  };
  const pidsIn = async (file: string) =>
    (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);
  const runs = () => pidsIn(runsFile);
  /**
   * Resolves once the recorder has had the server's answer to a create: the server stores the Event before the
   * recorder reads the answer, and a publish made in between is still told the credentials failed.
   */
  const writtenByTheRecorder = () =>
    lastProbe(
      () => outcomes.some((outcome) => outcome.kind === 'created'),
      (created) => created,
    );
  /** Every text a failure reached: the errors and their causes, the outcomes, the log. */
  const texts = (errors: unknown[]) => {
    const found = [...logged];
    for (const error of errors)
      for (let cause = error; cause instanceof Error; cause = cause.cause) found.push(cause.message);
    for (const outcome of outcomes) if (outcome.error) found.push(outcome.error.message);
    return found;
  };

  beforeEach(async () => {
    server = await FakeApiServer.start({ token: 'plugin-token' });
    dir = await mkdtemp(join(tmpdir(), 'kube-events-exec-'));
    runsFile = join(dir, 'runs');
    childrenFile = join(dir, 'children');
    fixedFile = join(dir, 'fixed');
    plugin = join(dir, 'credential-plugin.mjs');
    await writeFile(plugin, PLUGIN);
    outcomes = [];
    logged = captureLogLines();
  });
  afterEach(async () => {
    await whileAdvancing(
      clocks.splice(0),
      Promise.all(recorders.splice(0).map((recorder) => recorder.onApplicationShutdown())),
    );
    for (const pid of [...(await runs()), ...(await pidsIn(childrenFile))])
      if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    await server.close();
    await rm(dir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  it('starts a hanging plugin once for every write waiting for it, retries included, and stops it at shutdown', async () => {
    const clock = new FakeClock();
    const recorder = recorderWith(kubeConfigWith('hang'), 300, undefined, clock);

    const publishing = Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        recorder.publish(configMap(`object-${i}`), syncFailed).catch((e: unknown) => e),
      ),
    );
    // The plugin is a process: it starts in real time, then every write waits for it until the recorder's timeout.
    const pids = await lastProbe(runs, (found) => found.length > 0);
    await clock.advance(300);
    const results = await publishing;
    for (const result of results) expect(result).toBeInstanceOf(PublishTimeoutError);
    // Each write's timeout names what it waited for: no request was sent.
    const timedOut = outcomes.filter((outcome) => outcome.kind === 'failed');
    expect(timedOut).not.toHaveLength(0);
    for (const { error } of timedOut) {
      expect(error).toBeInstanceOf(PublishTimeoutError);
      expect(error!.message).toMatch(
        /^Publishing the Event did not finish within 300 ms: The kubeconfig's exec credential plugin `.*` was still running \(for \d+ ms\), so no request was sent\.$/,
      );
    }
    // The queued writes retry on their backoff (200 ms, doubling) meanwhile; new publishes come in too.
    await clock.advance(1_500);
    const late = Promise.all(
      Array.from({ length: 10 }, (_, i) => recorder.publish(configMap(`late-${i}`), syncFailed).catch(() => undefined)),
    );
    await clock.advance(300);
    await late;

    expect(await runs()).toEqual(pids);
    expect(pids).toHaveLength(1);
    expect(isRunning(pids[0])).toBe(true);
    expect(server.requests).toHaveLength(0);

    await whileAdvancing([clock], recorder.onApplicationShutdown());
    expect(
      await lastProbe(
        () => isRunning(pids[0]),
        (running) => !running,
      ),
    ).toBe(false);
  });

  it('reports a failing plugin as a credential failure, without its output, and keeps the occurrence queued', async () => {
    const recorder = recorderWith(kubeConfigWith('fail'), 5_000, undefined, new FakeClock());

    const error = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PublishCredentialError);
    expect(error).not.toBeInstanceOf(PublishUnreachableError);
    expect(error).toMatchObject({
      message: `The kubeconfig's exec credential plugin \`${process.execPath}\` failed with exit code 3.`,
      plugin: { command: process.execPath, exitCode: 3, timedOut: false },
      queued: true,
    });
    expect(server.requests).toHaveLength(0);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['failed']);
    expect(logged.some((line) => line.startsWith('outcome=failed'))).toBe(true);
    for (const text of texts([error])) for (const secret of SECRETS) expect(text).not.toContain(secret);

    // The next publish is told at once, without running the plugin again.
    const next = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);
    expect(next).toBeInstanceOf(PublishCredentialError);
    expect(next).toMatchObject({ queued: true, plugin: { exitCode: 3 } });
    expect(await runs()).toHaveLength(1);
  });

  it('tries failing credentials again on a doubling backoff for the whole recorder, not once per write', async () => {
    const clock = new FakeClock();
    const recorder = recorderWith(kubeConfigWith('fail'), 1_000, undefined, clock);

    // 40 objects, each published every 100 ms for 2.5 s: each series retries on its own backoff meanwhile.
    const errors: unknown[] = [];
    while (clock.now() < 2_500) {
      const round = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          recorder.publish(configMap(`object-${i}`), syncFailed).catch((e: unknown) => e),
        ),
      );
      errors.push(...round);
      await clock.advance(100);
    }

    // Each told at once of the credentials' failure, but for a publish that waited for a run that outlasted its timeout.
    for (const error of errors) expect(error).toMatchObject({ queued: true });
    const told = errors.filter((error) => error instanceof PublishCredentialError);
    expect(told.length).toBeGreaterThan(errors.length - 4);
    // Tried at once, then after 0.5 s and 1 s more (the next try would be 2 s later): not thousands of runs. A retry
    // is a real process that may still be starting when the fake time has run out, so its pid is waited for.
    const tries = (await lastProbe(runs, (found) => found.length >= 2)).length;
    expect(tries).toBeGreaterThanOrEqual(2);
    expect(tries).toBeLessThanOrEqual(4);
    expect(server.requests).toHaveLength(0);
  });

  it('writes every queued occurrence, counted once, when the credentials work again', async () => {
    const recorder = recorderWith(kubeConfigWith('fail'), 5_000);
    const failed: unknown[] = [];
    for (let i = 0; i < 5; i++)
      failed.push(await recorder.publish(configMap('widget'), syncFailed).catch((e: unknown) => e));
    for (const error of failed) {
      expect(error).toBeInstanceOf(PublishCredentialError);
      expect(error).toMatchObject({ queued: true });
    }

    await writeFile(fixedFile, '');
    await writtenByTheRecorder();
    const written = server.events();
    expect(written).toHaveLength(1);
    expect(written[0].series?.count ?? 1).toBe(5);

    await recorder.publish(configMap('widget'), syncFailed);
    expect(server.events()).toHaveLength(1);
    expect(server.events()[0].series?.count).toBe(6);
    expect(server.requests.every((request) => request.headers.authorization === 'Bearer plugin-token')).toBe(true);
  });

  it('says a plugin printed no credential, without quoting what it printed', async () => {
    const recorder = recorderWith(kubeConfigWith('garbage'), 5_000, undefined, new FakeClock());

    const error = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PublishCredentialError);
    expect((error as Error).message).toMatch(/exec credential plugin `.*` printed no credential that could be read/);
    for (const text of texts([error])) for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  it('stops a plugin that runs past its timeout, and says it timed out', async () => {
    const kubeConfig = kubeConfigWith('hang');
    // The plugin's own timeout is real time, what this test is about; the recorder's is on a clock that stands still.
    const api = new EventsApi(kubeConfig, { execPluginTimeoutMs: 1_000 });
    const recorder = recorderWith(kubeConfig, 5_000, api, new FakeClock());

    const error = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PublishCredentialError);
    expect((error as Error).message).toMatch(
      /^The kubeconfig's exec credential plugin `.*` timed out and was stopped after \d+ ms\.$/,
    );
    expect(error).toMatchObject({ plugin: { timedOut: true, signal: 'SIGKILL' } });
    expect((error as PublishCredentialError).plugin!.durationMs).toBeGreaterThanOrEqual(990);
    const [pid] = await lastProbe(runs, (found) => found.length > 0);
    expect(pid).toBeGreaterThan(0);
    expect(
      await lastProbe(
        () => isRunning(pid),
        (running) => !running,
      ),
    ).toBe(false);
  });

  /** A kubeconfig running {@link SHELL_PLUGIN}. */
  const shellPluginKubeConfig = async (hangingRuns: number, launcher = '') => {
    const script = join(dir, 'credential-plugin.sh');
    await writeFile(script, SHELL_PLUGIN);
    return server.kubeConfig({
      token: undefined,
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: '/bin/sh',
        args: [script],
        env: [
          { name: 'RUNS_FILE', value: runsFile },
          { name: 'CHILDREN_FILE', value: childrenFile },
          { name: 'HANGING_RUNS', value: String(hangingRuns) },
          { name: 'LAUNCHER', value: launcher },
        ],
        interactiveMode: 'Never',
      },
    });
  };

  it('stops a plugin whose child holds its pipes, child included, as a credential failure, and writes once a run works', async () => {
    const kubeConfig = await shellPluginKubeConfig(2);
    // A real second for each run (the plugin's bound is real time): a run that prints its token finishes within it
    // on a loaded machine, so that the runs counted are the two that hang and the one that works.
    const recorder = recorderWith(kubeConfig, 5_000, new EventsApi(kubeConfig, { execPluginTimeoutMs: 1_000 }));

    const first = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

    // client-node read the end of the plugin's output only once its child was stopped too.
    expect(first).toBeInstanceOf(PublishCredentialError);
    expect(first).toMatchObject({ queued: true, plugin: { command: '/bin/sh', timedOut: true, signal: 'SIGKILL' } });
    expect((first as Error).message).toMatch(
      /^The kubeconfig's exec credential plugin `\/bin\/sh` timed out and was stopped after \d+ ms\.$/,
    );
    const meanwhile = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);
    expect(meanwhile).toBeInstanceOf(PublishCredentialError);
    expect(server.requests).toHaveLength(0);

    // Tried again on the credentials' backoff: the second run hangs too, the third prints a token.
    await writtenByTheRecorder();
    expect(server.events()).toHaveLength(1);
    await recorder.publish(configMap(), syncFailed);
    expect(server.events()[0].series?.count).toBe(3);
    expect(server.requests.every((request) => request.headers.authorization === 'Bearer plugin-token')).toBe(true);
    expect(await runs()).toHaveLength(3);

    const hung = await pidsIn(childrenFile);
    expect(hung).toHaveLength(2);
    for (const pid of [...hung, ...(await runs())])
      expect(
        await lastProbe(
          () => isRunning(pid),
          (running) => !running,
        ),
      ).toBe(false);
  });

  it('lets publishes succeed again after a run whose child hung outlasted their timeout', async () => {
    const kubeConfig = await shellPluginKubeConfig(1);
    const recorder = recorderWith(kubeConfig, 300, new EventsApi(kubeConfig, { execPluginTimeoutMs: 1_000 }));

    const first = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

    expect(first).toBeInstanceOf(PublishTimeoutError);
    // Once the run is stopped, with its child, the next one gives a token: a publish succeeds.
    const succeeded = await lastProbe(
      () =>
        recorder.publish(configMap(), syncFailed).then(
          () => true,
          () => false,
        ),
      (done) => done,
    );
    expect(succeeded).toBe(true);
    // The write's own timeout said what it waited for.
    expect(outcomes.find((outcome) => outcome.kind === 'failed')?.error?.message).toMatch(
      /exec credential plugin `\/bin\/sh` was still running/,
    );
    expect(await runs()).toHaveLength(2);
    const [child] = await pidsIn(childrenFile);
    expect(
      await lastProbe(
        () => isRunning(child),
        (running) => !running,
      ),
    ).toBe(false);
  });

  it('ends a plugin run whose child left its process group and holds its pipes', async () => {
    const kubeConfig = await shellPluginKubeConfig(1, 'setsid');
    // A real second, as above: the run that works finishes within it on a loaded machine.
    const recorder = recorderWith(kubeConfig, 5_000, new EventsApi(kubeConfig, { execPluginTimeoutMs: 1_000 }));

    const first = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

    expect(first).toBeInstanceOf(PublishCredentialError);
    expect(first).toMatchObject({ plugin: { timedOut: true } });
    // The child outside the group is not found (the test ends it): the run ends all the same, and the next one works.
    await recorder.flush();
    expect(server.events()).toHaveLength(1);
    expect(await runs()).toHaveLength(2);
  });

  it('says a plugin that is not there could not be started', async () => {
    const recorder = recorderWith(
      kubeConfigWith('token', join(dir, 'no-such-plugin')),
      5_000,
      undefined,
      new FakeClock(),
    );

    const error = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PublishCredentialError);
    expect((error as Error).message).toBe(
      `The kubeconfig's exec credential plugin \`${join(dir, 'no-such-plugin')}\` could not be started (ENOENT).`,
    );
  });

  it('reports a token file that cannot be read as a credential failure, not an unreachable server', async () => {
    const tokenFile = join(dir, 'no-such-token');
    const kubeConfig = server.kubeConfig({
      token: undefined,
      authProvider: { name: 'tokenFile', config: { tokenFile } },
    });
    const recorder = recorderWith(kubeConfig, 5_000, undefined, new FakeClock());

    const error = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PublishCredentialError);
    expect((error as Error).message).toBe(
      "The kubeconfig's tokenFile authentication failed (ENOENT); its message is not shown, as it may hold credentials.",
    );
    expect(error).toMatchObject({ plugin: undefined });
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['non-JSON output on stdout', 'flood', 'stdout'],
    ['an ExecCredential whose token no server accepts', 'huge-token', 'stdout'],
    ['output on stderr', 'flood-stderr', 'stderr'],
  ])(
    'stops a plugin that prints more than 2 MiB (%s), as a credential failure, and sends nothing',
    async (_, mode, stream) => {
      const recorder = recorderWith(kubeConfigWith(mode), 10_000);

      const error = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(PublishCredentialError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^The kubeconfig's exec credential plugin \`.*\` printed more than 2 MiB on ${stream} and was stopped`,
        ),
      );
      expect(error).toMatchObject({ plugin: { outputTooLarge: { stream, limitBytes: 2 * 1024 * 1024 } } });
      expect(server.requests).toHaveLength(0);
      for (const text of texts([error])) expect(text).not.toContain('secret-output');
    },
  );

  it('takes a plugin token that cannot go in a header for a credential failure, not an unreachable server', async () => {
    const recorder = recorderWith(kubeConfigWith('broken-token'), 5_000);

    const error = await recorder.publish(configMap(), syncFailed).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PublishCredentialError);
    expect((error as Error).message).toMatch(/invalid "Authorization" header .* so no request was sent/);
    expect(server.requests).toHaveLength(0);
    for (const text of texts([error])) expect(text).not.toContain('secret-output');
  });

  it('writes with the token of a plugin that works, one run for concurrent writes', async () => {
    const recorder = recorderWith(kubeConfigWith('token'), 5_000);

    await Promise.all(Array.from({ length: 20 }, (_, i) => recorder.publish(configMap(`object-${i}`), syncFailed)));

    expect(server.events()).toHaveLength(20);
    expect(server.requests.every((request) => request.headers.authorization === 'Bearer plugin-token')).toBe(true);
    expect(await runs()).toHaveLength(1);
  });
});
