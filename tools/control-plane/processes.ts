// The processes a control plane runs: started with their logs, stopped on exit (a watchdog shell outlives a killed parent), and their temp directories removed.

import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { E2E_ENV } from './definitions.js';

export interface Owned {
  dir: string;
  processes: ChildProcess[];
  stopped?: Promise<void>;
}

export const running = new Set<ChildProcess>();
export const tempDirs = new Set<string>();
export let handlersInstalled = false;

export function keepTempDirs(): boolean {
  return !!process.env[E2E_ENV.keep];
}

/** Synchronous last resort: kill everything still running and remove temp dirs. */
export function killEverythingNow(): void {
  for (const child of running) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  running.clear();
  if (!keepTempDirs()) for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

export function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killEverythingNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      // Someone else (the CLI, Jest) handles this signal and will stop us
      // cleanly or exit, which runs the 'exit' handler.
      if (process.listenerCount(signal) > 1) return;
      killEverythingNow();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * A shell that outlives this process if it is killed with SIGKILL (or, under
 * Jest, if process.on('exit') never fires because test code sees a copy of
 * `process`), and then stops the child and removes the directory. Without a
 * child it only removes the directory once this process is gone.
 */
export function spawnWatchdog(child: ChildProcess | undefined, dir: string): void {
  const script = [
    'parent=$1; child=$2; dir=$3',
    'alive() { [ "$child" = 0 ] || kill -0 "$child" 2>/dev/null; }',
    'while kill -0 "$parent" 2>/dev/null && alive; do sleep 1; done',
    'kill -0 "$parent" 2>/dev/null && exit 0',
    'if [ "$child" != 0 ]; then',
    '  kill -TERM "$child" 2>/dev/null',
    '  for i in 1 2 3 4 5 6; do kill -0 "$child" 2>/dev/null || break; sleep 0.5; done',
    '  kill -KILL "$child" 2>/dev/null',
    'fi',
    '[ -n "$dir" ] && rm -rf "$dir"',
  ].join('\n');
  const args = [String(process.pid), String(child?.pid ?? 0), keepTempDirs() ? '' : dir];
  const watchdog = spawn('sh', ['-c', script, 'watchdog', ...args], { stdio: 'ignore', detached: true });
  watchdog.on('error', () => undefined); // a watchdog that cannot start leaves the cleanup to the exit handlers
  watchdog.unref();
}

export let scratchDir: Promise<string> | undefined;

/** A temp directory for this process's small files (ServiceAccount kubeconfigs), removed when it exits. */
export function processScratchDir(): Promise<string> {
  scratchDir ??= (async () => {
    const dir = await makeTempDir(`kube-events-e2e-${process.pid}-`);
    spawnWatchdog(undefined, dir);
    return dir;
  })();
  return scratchDir;
}

export function spawnLogged(command: string, args: string[], logPath: string, dir: string): ChildProcess {
  installExitHandlers();
  const fd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  child.on('error', () => undefined); // reported through 'exit'/the log
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.unref();
  spawnWatchdog(child, dir);
  return child;
}

export function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

export async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (exited(child)) return;
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await done;
  clearTimeout(timer);
  running.delete(child);
}

export function stopOwned(owned: Owned): Promise<void> {
  owned.stopped ??= (async () => {
    for (const child of owned.processes) await stopProcess(child);
    if (!keepTempDirs()) await rm(owned.dir, { recursive: true, force: true });
    tempDirs.delete(owned.dir);
  })();
  return owned.stopped;
}

export async function makeTempDir(prefix: string): Promise<string> {
  installExitHandlers();
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Error lines kube-apiserver logs at every start although nothing is wrong,
 * and why. Kubernetes 1.37 reads the metrics label allow-list manifest even
 * when no --allow-metric-labels-manifest is given, and says so.
 */
const HARMLESS_LOG_LINES = [
  {
    text: 'The manifest file is empty, ignoring.',
    why: 'Kubernetes 1.37 logs it at every start (no metrics label allow-list is configured, none is needed)',
  },
];

export function startupError(what: string, reason: string, logPath: string): Error {
  const log = tail(logPath);
  const notes = HARMLESS_LOG_LINES.filter(({ text }) => log.includes(text)).map(
    ({ text, why }) => `\n(harmless: "${text}": ${why})`,
  );
  return new Error(`${what} did not start: ${reason}\n--- last lines of ${logPath} ---\n${log}\n---${notes.join('')}`);
}

export const BIND_FAILURE = /address already in use|bind: |failed to listen/i;
