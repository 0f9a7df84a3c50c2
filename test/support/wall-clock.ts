// Moving the wall clock alone, as a test of what happens "a minute later" needs (client-node reads a token file
// again once a minute of Date has passed): every timer, hrtime and the recorder's monotonic clock keep running.
import { jest } from '@jest/globals';

const EVERYTHING_BUT_DATE = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const;

/** Sets `Date` `ms` ahead of now (until `jest.useRealTimers()`), and fakes nothing else. */
export function moveWallClock(ms: number): void {
  jest.useFakeTimers({ doNotFake: [...EVERYTHING_BUT_DATE], now: Date.now() + ms });
}
