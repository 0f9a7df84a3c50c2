// A Nest logger that keeps what an application logs, as lines a test reads instead of printing them.
import type { LoggerService } from '@nestjs/common';

/** Every message Nest's Logger was given, at any level, in order. */
export class CapturedLogs implements LoggerService {
  readonly lines: string[] = [];
  log = (message: unknown) => this.lines.push(String(message));
  warn = (message: unknown) => this.lines.push(String(message));
  error = (message: unknown) => this.lines.push(String(message));
  debug = (message: unknown) => this.lines.push(String(message));
  verbose = (message: unknown) => this.lines.push(String(message));
}
