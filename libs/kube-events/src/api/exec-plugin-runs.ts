import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { KubeConfig } from '@kubernetes/client-node';
import type { CredentialPluginRun } from '../errors.js';

/**
 * How long a kubeconfig's exec credential plugin may run before it is
 * stopped and its run counts as failed: long enough for a cloud CLI that
 * fetches a token over the network, short enough that a plugin that hangs
 * is tried again within a minute.
 */
const EXEC_PLUGIN_TIMEOUT_MS = 30_000;

/**
 * The most a plugin may print on stdout, and on stderr, in bytes (client-go
 * sets no bound): an ExecCredential carries a token, which the API server
 * takes up to 1 MiB of headers for, and perhaps a client certificate and
 * key. A plugin that prints more is stopped and its run fails, before
 * client-node, which keeps all of it in one string, parses it: 640 MB of
 * output would pass V8's longest string and throw where nothing catches it.
 */
const MAX_PLUGIN_OUTPUT_BYTES = 2 * 1024 * 1024;

/**
 * Whether a plugin runs in a process group of its own, so that stopping it
 * stops what it started too: a shell-script plugin's child (a `sleep`, a
 * cloud CLI) holds the plugin's output pipes, and client-node reads a
 * credential only once they close. Windows has no process groups.
 */
const OWN_PROCESS_GROUP = process.platform !== 'win32';

/** client-node's authenticators, private in its typings: the exec one starts the plugin through its `execFn`. */
interface Authenticator {
  execFn?: (command: string, args: readonly string[] | undefined, options: SpawnOptions) => ChildProcess;
}

/** A run as it goes: what {@link CredentialPluginRun} says once it ends. */
interface Run {
  command: string;
  child: ChildProcess;
  timer: NodeJS.Timeout;
  startedAt: number;
  endedAt?: number;
  exitCode?: number;
  signal?: string;
  timedOut: boolean;
  startError?: string;
  outputTooLarge?: CredentialPluginRun['outputTooLarge'];
}

/**
 * The runs of a kubeconfig's exec credential plugin, as client-node's own
 * exec authentication starts them (its token cache, environment and
 * parsing unchanged): each is stopped once it has run for `timeoutMs`
 * (client-node waits for ever), with every process it started, and how the
 * latest one ended is kept, since client-node's error says only what the
 * plugin printed to stderr, which must not reach a message.
 */
export class ExecPluginRuns {
  private latest: Run | undefined;
  private readonly running = new Set<Run>();

  constructor(
    private readonly timeoutMs = EXEC_PLUGIN_TIMEOUT_MS,
    private readonly maxOutputBytes = MAX_PLUGIN_OUTPUT_BYTES,
  ) {}

  /**
   * client-node's authenticators for `kubeConfig`, the exec one starting its
   * plugin here (the others as they are), for a view of the KubeConfig;
   * `undefined` when client-node has none that this can follow.
   */
  authenticatorsFor(kubeConfig: KubeConfig): Authenticator[] | undefined {
    const authenticators = (kubeConfig as unknown as { authenticators?: Authenticator[] }).authenticators;
    if (!Array.isArray(authenticators) || !authenticators.some((one) => typeof one.execFn === 'function')) {
      return undefined;
    }
    const execFn = (command: string, args: readonly string[] | undefined, options: SpawnOptions) =>
      this.start(command, args, options);
    // Each exec authenticator keeps its token cache (inherited) and starts plugins here.
    return authenticators.map((one) =>
      typeof one.execFn === 'function' ? (Object.create(one, { execFn: { value: execFn } }) as Authenticator) : one,
    );
  }

  /** How the run started since `since` (a {@link mark}) ended, if one was. */
  endedSince(since: object | undefined): CredentialPluginRun | undefined {
    const run = this.latest;
    if (!run || run === since) return undefined;
    const { command, exitCode, signal, timedOut, startError, outputTooLarge, startedAt, endedAt } = run;
    return {
      command,
      exitCode,
      signal,
      timedOut,
      startError,
      ...(outputTooLarge && { outputTooLarge }),
      durationMs: (endedAt ?? performance.now()) - startedAt,
    };
  }

  /** The latest run, while it is still going: what a request waiting for credentials waits for. */
  runningNow(): CredentialPluginRun | undefined {
    const run = this.latest;
    if (!run || !this.running.has(run) || run.endedAt !== undefined) return undefined;
    return { command: run.command, timedOut: false, durationMs: performance.now() - run.startedAt };
  }

  /** The latest run so far, for {@link endedSince}. */
  mark(): object | undefined {
    return this.latest;
  }

  /** Stops the runs still going, as the recorder shuts down. */
  stop(): void {
    for (const run of this.running) stopRun(run);
  }

  private start(command: string, args: readonly string[] | undefined, options: SpawnOptions): ChildProcess {
    const child = spawn(command, args ?? [], { ...options, detached: OWN_PROCESS_GROUP });
    const run: Run = {
      command,
      child,
      startedAt: performance.now(),
      timedOut: false,
      timer: setTimeout(() => {
        run.timedOut = true;
        stopRun(run);
      }, this.timeoutMs),
    };
    run.timer.unref();
    this.latest = run;
    this.running.add(run);
    child.once('error', (error: NodeJS.ErrnoException) => (run.startError ??= error.code ?? error.name));
    this.bound(run, 'stdout');
    this.bound(run, 'stderr');
    // 'exit' comes before client-node's 'close', which settles its credential.
    child.once('exit', (code, signal) => {
      run.endedAt = performance.now();
      run.exitCode = code ?? undefined;
      run.signal = signal ?? undefined;
    });
    child.once('close', () => {
      clearTimeout(run.timer);
      this.running.delete(run);
    });
    return child;
  }

  /**
   * Stops the run once it has printed more than {@link MAX_PLUGIN_OUTPUT_BYTES}
   * on `stream`: this listener comes before client-node's, so that client-node
   * holds at most one chunk past the bound, and its pipe is closed after it.
   */
  private bound(run: Run, stream: 'stdout' | 'stderr'): void {
    let printed = 0;
    run.child[stream]?.on('data', (chunk: Buffer | string) => {
      printed += chunk.length;
      if (printed <= this.maxOutputBytes || run.outputTooLarge) return;
      run.outputTooLarge = { stream, limitBytes: this.maxOutputBytes };
      stopRun(run);
    });
  }
}

/**
 * Kills the run's process group (the plugin and whatever it started that
 * stayed in it), and closes this end of its pipes: client-node waits for
 * them to close, and a process that left the group (a daemon) may still
 * hold the other end.
 */
function stopRun({ child }: Run): void {
  if (!OWN_PROCESS_GROUP || child.pid === undefined || !killGroup(child.pid)) child.kill('SIGKILL');
  for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe?.destroy();
}

/** Whether the process group `pid` leads was there to be killed. */
function killGroup(pid: number): boolean {
  try {
    process.kill(-pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}
