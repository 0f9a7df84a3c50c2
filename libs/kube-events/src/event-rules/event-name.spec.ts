import fc from 'fast-check';
import { eventName } from './event-name.js';

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

  it('writes the nanoseconds exactly in hexadecimal, for any whole number of milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) }), (ms) => {
        const hex = eventName('app-config', 'ctl', ms).split('.')[1];
        expect(hex).toMatch(/^[0-9a-f]+$/);
        expect(BigInt(`0x${hex}`) / 1_000_000n).toBe(BigInt(ms));
      }),
      { numRuns: 2_000 },
    );
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
