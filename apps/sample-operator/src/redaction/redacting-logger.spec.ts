import type { LoggerService } from '@nestjs/common';
import { RedactingLogger, redactingLogger } from './redacting-logger.js';

/** A logger that keeps what it is asked to write. */
function keeping(): LoggerService & { lines: unknown[][] } {
  const lines: unknown[][] = [];
  const keep = (...args: unknown[]) => void lines.push(args);
  return { lines, log: keep, error: keep, warn: keep, debug: keep, verbose: keep, fatal: keep };
}

describe('RedactingLogger', () => {
  const url =
    'Request cannot be constructed from a URL that includes credentials: https://admin:Sup3rSecretPw@127.0.0.1:6443/api';

  test('removes credentials from messages, errors, objects and string parameters, at every level', () => {
    const inner = keeping();
    const logger = new RedactingLogger(inner);
    logger.log(url, 'Informer(configmaps)');
    logger.warn(new TypeError(url));
    logger.error({ cause: url }, `stack: ${url}`, 'Context');
    logger.debug?.(url);
    logger.verbose?.(url);
    logger.fatal?.(url);
    const written = JSON.stringify(inner.lines);
    expect(written).not.toContain('Sup3rSecretPw');
    expect(inner.lines).toHaveLength(6);
    expect(inner.lines[0]).toEqual([
      'Request cannot be constructed from a URL that includes credentials: https://[redacted]@127.0.0.1:6443/api',
      'Informer(configmaps)',
    ]);
  });

  test('wraps whatever the operator is given to log with, and keeps logging off when it is off', () => {
    expect(redactingLogger(false)).toBe(false);
    expect(redactingLogger(undefined)).toBeInstanceOf(RedactingLogger);
    expect(redactingLogger(['error'])).toBeInstanceOf(RedactingLogger);
    const wrapped = redactingLogger(keeping());
    expect(wrapped).toBeInstanceOf(RedactingLogger);
    expect(redactingLogger(wrapped)).toBe(wrapped);
  });
});
