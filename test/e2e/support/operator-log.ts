// What the sample operator logs while an end-to-end test drives it in-process: kept as lines, shown when a wait
// times out.
import type { LoggerService } from '@nestjs/common';
import { eventually } from '../../support/eventually.js';

/** A Nest logger that keeps the operator's log lines (`LEVEL [context] message`), printed only when a test fails. */
export class OperatorLog implements LoggerService {
  readonly lines: string[] = [];

  log(message: unknown, ...rest: unknown[]): void {
    this.write('LOG', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('WARN', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('ERROR', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('DEBUG', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('VERBOSE', message, rest);
  }

  /** Forgets the lines so far, for an operator started anew with this log. */
  clear(): void {
    this.lines.length = 0;
  }

  private write(level: string, message: unknown, rest: unknown[]): void {
    const context = typeof rest.at(-1) === 'string' ? ` [${String(rest.at(-1))}]` : '';
    this.lines.push(`${level}${context} ${String(message)}`);
  }
}

/**
 * `eventually` for the tests of an operator whose log is `current()`: a timeout shows its last 30 lines; it waits
 * `defaultTimeoutMs` unless told otherwise.
 */
export function eventuallyShowing(current: () => OperatorLog | undefined, defaultTimeoutMs: number) {
  return <T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = defaultTimeoutMs): Promise<T> =>
    eventually(what, check, {
      timeoutMs,
      context: () => {
        const log = current();
        return log ? `--- the operator's last log lines ---\n${log.lines.slice(-30).join('\n')}` : '';
      },
    });
}
