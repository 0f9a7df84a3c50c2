import { eventGenerateName } from './event-name.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** What the API server does with a generateName: cut to 58 characters, then 5 random ones. */
const generated = (prefix: string) => `${prefix.slice(0, 58)}x7k2p`;

describe('eventGenerateName', () => {
  it('is the object name and a dot', () => {
    expect(eventGenerateName('app-config', 'ctl')).toBe('app-config.');
  });

  it.each(['system:controller:demo', 'MyObject', 'a..b', '-lead.trail-', 'x'.repeat(300), 'dots.-.mixed_Under'])(
    'makes %j a valid DNS-subdomain prefix',
    (name) => {
      const prefix = eventGenerateName(name, 'ctl');
      expect(prefix.endsWith('.')).toBe(true);
      expect(generated(prefix)).toMatch(DNS_SUBDOMAIN);
      expect(prefix.length).toBeLessThanOrEqual(58);
    },
  );

  it('keeps what it can of the name', () => {
    expect(eventGenerateName('system:controller:demo', 'ctl')).toBe('system-controller-demo.');
    expect(eventGenerateName('MyObject', 'ctl')).toBe('myobject.');
  });

  it('falls back to the controller name without a usable object name', () => {
    expect(eventGenerateName(undefined, 'example.com/widget-controller')).toBe('example.com-widget-controller.');
    expect(eventGenerateName(':::', 'widgets')).toBe('widgets.');
  });
});
