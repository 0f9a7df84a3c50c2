// Nest's Logger as a test reads it: what the library and the operator log, kept as lines instead of printed.
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';

type Level = 'log' | 'warn' | 'error';

/** Keeps every message logged at `levels` from now on (until jest.restoreAllMocks) and returns the list it fills. */
export function captureLogLines(levels: readonly Level[] = ['log', 'warn', 'error']): string[] {
  const lines: string[] = [];
  for (const level of levels)
    jest.spyOn(Logger.prototype, level).mockImplementation((message: unknown) => {
      lines.push(String(message));
    });
  return lines;
}

/** Keeps Nest's Logger from printing at `level` from now on (until jest.restoreAllMocks), and returns the spy that sees each call. */
export function muteLogger<L extends Level>(level: L): jest.SpiedFunction<Logger[L]> {
  const spy = jest.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
  return spy as unknown as jest.SpiedFunction<Logger[L]>;
}
