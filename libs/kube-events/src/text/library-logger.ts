import { Logger } from '@nestjs/common';
import { loggableText } from './describe-value.js';

/**
 * Nest's `Logger`, for every line the library logs: the line is bounded,
 * its credentials redacted and what a terminal would act on escaped, so
 * that an error's text, a sink's stack or a server's answer quoted in it
 * cannot leak a token or forge a line of its own.
 */
export class LibraryLogger extends Logger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    super.log(loggableText(String(message)), ...optionalParams);
  }

  override warn(message: unknown, ...optionalParams: unknown[]): void {
    super.warn(loggableText(String(message)), ...optionalParams);
  }

  override error(message: unknown, ...optionalParams: unknown[]): void {
    super.error(loggableText(String(message)), ...optionalParams);
  }

  override debug(message: unknown, ...optionalParams: unknown[]): void {
    super.debug(loggableText(String(message)), ...optionalParams);
  }
}
