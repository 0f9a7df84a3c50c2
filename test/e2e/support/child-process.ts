// A child process as the e2e tests watch it: its output line by line, and how it exits.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/** A child process's output (stdout and stderr), line by line, with a way to wait for a line. */
export class ProcessLog {
  readonly lines: string[] = [];
  private waiters: (() => void)[] = [];

  constructor(child: ChildProcess) {
    for (const stream of [child.stdout!, child.stderr!]) {
      let buffered = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        buffered += chunk;
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          this.lines.push(buffered.slice(0, newline));
          buffered = buffered.slice(newline + 1);
        }
        for (const wake of this.waiters.splice(0)) wake();
      });
    }
  }

  text(): string {
    return this.lines.join('\n');
  }

  /** The index of the first line from `from` on that matches `pattern`, or -1. */
  index(pattern: string | RegExp, from = 0): number {
    return this.lines.findIndex(
      (line, i) => i >= from && (typeof pattern === 'string' ? line.includes(pattern) : pattern.test(line)),
    );
  }

  /** Resolves with the index of the first line matching `pattern`; rejects after `timeoutMs` with the log so far. */
  async waitFor(pattern: string | RegExp, timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.index(pattern);
      if (found >= 0) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for a log line ${String(pattern)}\n--- log ---\n${this.text()}`,
        );
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), sleep(Math.min(left, 200))]);
    }
  }
}

/** Resolves with the exit code (128+n for signal n), or 'timeout' if the process is still running after `timeoutMs`. */
export function exitOf(child: ChildProcess, timeoutMs: number): Promise<number | 'timeout'> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve(codeOf(child.exitCode, child.signalCode));
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(codeOf(code, signal));
    });
  });
}

function codeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const signals: Record<string, number> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return 128 + (signal ? (signals[signal] ?? 0) : 0);
}
