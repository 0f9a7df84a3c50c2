import fc from 'fast-check';
import { eventName, hexNanoseconds } from './event-name.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NOW = Date.UTC(2026, 10, 30, 13, 8, 33, 123);

describe('eventName', () => {
  it('is the object name, a dot and the time in hexadecimal nanoseconds', () => {
    const name = eventName('app-config', 'ctl', NOW);
    const [base, hex] = name.split('.');
    expect(base).toBe('app-config');
    const nanos = BigInt(`0x${hex}`);
    expect(nanos / 1_000_000n).toBe(BigInt(NOW));
  });

  it('writes the nanoseconds in hexadecimal exactly, for any whole number of milliseconds', () => {
    const exact = (ms: number, nanos: number) => (BigInt(ms) * 1_000_000n + BigInt(nanos)).toString(16);
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.integer({ min: 0, max: 999_999 }), (ms, nanos) => {
        expect(hexNanoseconds(ms, nanos)).toBe(exact(ms, nanos));
      }),
      { numRuns: 5_000 },
    );
    for (const [ms, nanos] of [
      [0, 0],
      [NOW, 999_999],
      [2 ** 24 - 1, 999_999],
      [2 ** 24, 0],
    ])
      expect(hexNanoseconds(ms, nanos)).toBe(exact(ms, nanos));
  });

  it('differs between two Events about one object in the same millisecond', () => {
    const names = new Set(Array.from({ length: 50 }, () => eventName('app-config', 'ctl', NOW)));
    expect(names.size).toBeGreaterThan(45);
  });

  it.each(['system:controller:demo', 'MyObject', 'a..b', '-lead.trail-', 'x'.repeat(300), 'dots.-.mixed_Under'])(
    'makes a valid DNS-subdomain name for an object named %j',
    (objectName) => {
      const name = eventName(objectName, 'ctl', NOW);
      expect(name).toMatch(DNS_SUBDOMAIN);
      expect(name.length).toBeLessThanOrEqual(253);
    },
  );

  it('keeps what it can of the object name', () => {
    expect(eventName('system:controller:demo', 'ctl', NOW)).toMatch(/^system-controller-demo\.[0-9a-f]+$/);
    expect(eventName('MyObject', 'ctl', NOW)).toMatch(/^myobject\.[0-9a-f]+$/);
  });

  it('falls back to the controller name without a usable object name', () => {
    expect(eventName(undefined, 'example.com/widget-controller', NOW)).toMatch(
      /^example\.com-widget-controller\.[0-9a-f]+$/,
    );
    expect(eventName(':::', 'widgets', NOW)).toMatch(/^widgets\.[0-9a-f]+$/);
  });
});
