import { ConsoleLogger, type LoggerService, type LogLevel } from '@nestjs/common';
import { inspect } from 'node:util';
import { redact } from './redact.js';

type Level = 'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal';

/**
 * A Nest logger that passes every message (and every string parameter: a
 * stack, a context) through {@link redact} before the logger it wraps
 * writes it. The operator installs it for the whole process, so that no log
 * line, its own or Nest's, carries a credential.
 */
export class RedactingLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    this.write('log', message, optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.write('error', message, optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.write('warn', message, optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.write('debug', message, optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.write('verbose', message, optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.write('fatal', message, optionalParams);
  }

  setLogLevels(levels: LogLevel[]): void {
    this.inner.setLogLevels?.(levels);
  }

  private write(level: Level, message: unknown, optionalParams: unknown[]): void {
    const args = [redacted(message), ...optionalParams.map(redacted)] as const;
    if (this.inner[level]) this.inner[level](...args);
    else this.inner.log(...args);
  }
}

/**
 * The logger the operator runs with: `logger` (Nest's console logger when
 * undefined, at these levels when a list) behind a {@link RedactingLogger};
 * `false` stays off.
 */
export function redactingLogger(logger: LoggerService | LogLevel[] | false | undefined): LoggerService | false {
  if (logger === false) return false;
  if (logger instanceof RedactingLogger) return logger;
  if (logger === undefined) return new RedactingLogger(new ConsoleLogger());
  if (Array.isArray(logger)) return new RedactingLogger(new ConsoleLogger({ logLevels: logger }));
  return new RedactingLogger(logger);
}

/** Strings redacted; errors and objects turned into redacted text (their own text may quote a credential). */
function redacted(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (value instanceof Error) return redact(value.stack ?? `${value.name}: ${value.message}`);
  if (value !== null && typeof value === 'object') return redact(inspect(value, { depth: 4, breakLength: Infinity }));
  return value;
}
