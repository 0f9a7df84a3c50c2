import { resolveRecorderOptions } from './recorder-options.js';
import type { KubeEventsModuleOptions } from '../kube-events.interfaces.js';
import { systemClock } from '../time/system-clock.js';

const resolve = (options: unknown) => resolveRecorderOptions(options as KubeEventsModuleOptions);

describe('resolveRecorderOptions', () => {
  it('applies the defaults and uses the controller as the instance', () => {
    expect(resolve({ reporter: { controller: 'example.com/widget-controller' } })).toEqual({
      reporter: { controller: 'example.com/widget-controller', instance: 'example.com/widget-controller' },
      timeout: 5_000,
      seriesWindow: 600_000,
      maxSeries: 10_000,
      writeControl: {
        objectBurst: 25,
        objectRefillMs: 300_000,
        maxDelay: 1_000,
        qps: 100,
        burst: 500,
        maxPending: 10_000,
        maxPendingBytes: 32 * 1024 * 1024,
      },
      resumeSeries: false,
      clusterScopedNamespace: 'default',
      traceContext: { prefix: 'tracing.k8s.io' },
      writeSpans: true,
      redactNote: expect.any(Function),
      combineSimilarEvents: 10,
      clock: systemClock,
      kubeConfig: undefined,
      permissionCheck: 'warn',
      logEvents: false,
      logRecords: false,
      metrics: true,
    });
  });

  it('returns options it resolved as they are, frozen, so that every part of a recorder shares one note redactor', () => {
    const resolved = resolve({ reporter: { controller: 'widgets' }, permissionCheck: 'fail', metrics: false });
    expect(resolve(resolved)).toBe(resolved);
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.writeControl)).toBe(true);
    expect(resolved).toMatchObject({ permissionCheck: 'fail', metrics: false });
  });

  it('takes a clock with now, setTimer, clearTimer and sleep, keeps it when resolved again, and names the field otherwise', () => {
    const clock = {
      now: () => 0,
      setTimer: systemClock.setTimer,
      clearTimer: () => undefined,
      sleep: systemClock.sleep,
    };
    const resolved = resolve({ reporter: { controller: 'widgets' }, clock });
    expect(resolved.clock).toBe(clock);
    expect(resolve(resolved).clock).toBe(clock);
    for (const bad of [Date, { now: () => 0 }, 'fake', null]) {
      expect(() => resolve({ reporter: { controller: 'widgets' }, clock: bad })).toThrow(
        /invalid option clock: clock must be a KubeEventsClock \(now, setTimer, clearTimer and sleep\)/,
      );
    }
  });

  it('takes a limit of similar events of at least 2, or false', () => {
    const limit = (combineSimilarEvents: unknown) =>
      resolve({ reporter: { controller: 'widgets' }, combineSimilarEvents }).combineSimilarEvents;

    expect(limit(2)).toBe(2);
    expect(limit(false)).toBe(false);
    for (const bad of [1, 0, 2.5, true, '10']) {
      expect(() => limit(bad)).toThrow(/invalid option combineSimilarEvents: .*false or an integer of at least 2/);
    }
  });

  it('removes credentials from notes unless redactNotes says otherwise', () => {
    const note = 'POST https://bot:hunter2@hooks.example.com/notify failed';
    const custom = (text: string) => text.toUpperCase();
    const redactNote = (redactNotes: unknown) =>
      resolve({ reporter: { controller: 'widgets' }, redactNotes }).redactNote;

    expect(redactNote(undefined)(note)).toBe('POST https://[redacted]@hooks.example.com/notify failed');
    expect(redactNote(true)(note)).toBe('POST https://[redacted]@hooks.example.com/notify failed');
    expect(redactNote(false)(note)).toBe(note);
    expect(redactNote(custom)).toBe(custom);
    expect(() => redactNote('yes')).toThrow(
      'KubeEventsModule: invalid option redactNotes: redactNotes must be true, false or a function (note: string) => string, got "yes".',
    );
  });

  it.each([
    [{}, 'reporter'],
    [{ reporter: {} }, 'reporter.controller'],
    [{ reporter: { controller: 'Widget Controller' } }, 'reporter.controller'],
    [{ reporter: { controller: 'Example.com/widgets' } }, 'reporter.controller'],
    [{ reporter: { controller: 'a'.repeat(64) } }, 'reporter.controller'],
    [{ reporter: { controller: 'widgets-' } }, 'reporter.controller'],
    [{ reporter: { controller: 'widgets', instance: 'i'.repeat(129) } }, 'reporter.instance'],
    [{ reporter: { controller: 'widgets', instance: 7 } }, 'reporter.instance'],
    [{ reporter: { controller: `${'a'.repeat(60)}.${'b'.repeat(60)}.example.com/widgets` } }, 'reporter.instance'],
    [{ reporter: { controller: 'widgets' }, timeout: 0 }, 'timeout'],
    [{ reporter: { controller: 'widgets' }, seriesWindow: -1 }, 'seriesWindow'],
    [{ reporter: { controller: 'widgets' }, maxSeries: 1.5 }, 'maxSeries'],
    [{ reporter: { controller: 'widgets' }, writeControl: { qps: 0 } }, 'writeControl.qps'],
    [{ reporter: { controller: 'widgets' }, resumeSeries: 'yes' }, 'resumeSeries'],
    [{ reporter: { controller: 'widgets' }, writeControl: { objectBurst: 2.5 } }, 'writeControl.objectBurst'],
    [{ reporter: { controller: 'widgets' }, writeControl: { maxDelay: 'soon' } }, 'writeControl.maxDelay'],
    [{ reporter: { controller: 'widgets' }, logEvents: 'true' }, 'logEvents'],
    [{ reporter: { controller: 'widgets' }, metrics: 'false' }, 'metrics'],
    [{ reporter: { controller: 'widgets' }, kubeConfig: '~/.kube/config' }, 'kubeConfig'],
    [{ reporter: { controller: 'widgets' }, kubeConfig: null }, 'kubeConfig'],
    [{ reporter: { controller: 'widgets' }, traceContext: 'off' }, 'traceContext'],
    [{ reporter: { controller: 'widgets' }, traceContext: null }, 'traceContext'],
    [{ reporter: { controller: 'widgets' }, traceContext: { prefix: 'Tracing.Example' } }, 'traceContext.prefix'],
    [{ reporter: { controller: 'widgets' }, traceContext: { prefix: 'a/b' } }, 'traceContext.prefix'],
    [{ reporter: { controller: 'widgets' }, traceContext: { prefix: '' } }, 'traceContext.prefix'],
    [{ reporter: { controller: 'widgets' }, writeSpans: 1 }, 'writeSpans'],
    [{ reporter: { controller: 'widgets' }, logRecords: 'yes' }, 'logRecords'],
    [{ reporter: { controller: 'widgets' }, permissionCheck: 'strict' }, 'permissionCheck'],
  ])('refuses %j naming %s', (options, field) => {
    expect(() => resolve(options)).toThrow(new RegExp(`invalid option ${field.replace('.', '\\.')}:`));
  });

  it('keeps trace context and write spans off when resolved options are resolved again, as the module factory does', () => {
    const off = resolve({ reporter: { controller: 'widgets' }, traceContext: false, writeSpans: false });
    expect(resolve(off)).toEqual(off);
    const prefixed = resolve({ reporter: { controller: 'widgets' }, traceContext: { prefix: 'tracing.example.com' } });
    expect(resolve(prefixed)).toEqual(prefixed);
  });

  it('turns trace context off, or writes it under another prefix', () => {
    const controller = { reporter: { controller: 'widgets' } };
    expect(resolve({ ...controller, traceContext: false })).toMatchObject({ traceContext: false, writeSpans: true });
    expect(resolve({ ...controller, traceContext: { prefix: 'tracing.example.com' } }).traceContext).toEqual({
      prefix: 'tracing.example.com',
    });
    expect(resolve({ ...controller, traceContext: {}, writeSpans: false })).toMatchObject({
      traceContext: { prefix: 'tracing.k8s.io' },
      writeSpans: false,
    });
    expect(() => resolve({ ...controller, traceContext: { prefix: 'Tracing' } })).toThrow(
      "invalid option traceContext.prefix: traceContext.prefix must be a DNS subdomain of at most 253 characters (lower case letters, digits, '-' and '.'), as an annotation key's prefix, got \"Tracing\".",
    );
  });

  it('takes default or kube-system as the namespace of Events about cluster-scoped objects, and says why no other', () => {
    const controller = { reporter: { controller: 'widgets' } };
    expect(resolve({ ...controller, clusterScopedNamespace: 'kube-system' }).clusterScopedNamespace).toBe(
      'kube-system',
    );
    expect(resolve({ ...controller, clusterScopedNamespace: 'default' }).clusterScopedNamespace).toBe('default');
    expect(() => resolve({ ...controller, clusterScopedNamespace: 'operators' })).toThrow(
      "KubeEventsModule: invalid option clusterScopedNamespace: clusterScopedNamespace must be 'default' or " +
        '\'kube-system\', got "operators": the API server creates an Event about a cluster-scoped object in no other ' +
        'namespace (it answers 422, "involvedObject.namespace: does not match event.namespace").',
    );
    for (const value of ['', 'Default', null, 1, { namespace: 'default' }]) {
      expect(() => resolve({ ...controller, clusterScopedNamespace: value })).toThrow(
        /^KubeEventsModule: invalid option clusterScopedNamespace: /,
      );
    }
  });

  it('quotes a 2 MB controller name short in the start-up error', () => {
    const controller = `${'c'.repeat(2 * 1024 * 1024)}!`;
    let message = '';
    try {
      resolve({ reporter: { controller } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /^KubeEventsModule: invalid option reporter\.controller: .*got "c{80}"… \(2097153 characters\)\.$/,
    );
    expect(message.length).toBeLessThan(512);
  });

  it('names the field and the value of a BigInt option, rather than failing on it', () => {
    expect(() => resolve({ reporter: { controller: 'widgets' }, timeout: 5000n })).toThrow(
      'invalid option timeout: timeout must be a positive number, got 5000n (a BigInt).',
    );
    expect(() => resolve({ reporter: { controller: 'widgets' }, maxSeries: 10n })).toThrow(
      /invalid option maxSeries: .*got 10n \(a BigInt\)/,
    );
  });

  it('accepts qualified names with and without a prefix', () => {
    for (const controller of ['widgets', 'example.com/widget-controller', 'A_b.c-D', 'a']) {
      expect(resolve({ reporter: { controller } }).reporter.controller).toBe(controller);
    }
  });

  it('tells to write reporter as an object when it is given as a string', () => {
    expect(() => resolve({ reporter: 'example.com/widget-controller' })).toThrow(
      'KubeEventsModule: invalid option reporter: reporter must be an object { controller, instance? }, ' +
        'got the string "example.com/widget-controller": ' +
        "write reporter: { controller: 'example.com/widget-controller' }.",
    );
  });

  it('shows the shape of reporter when it is missing', () => {
    expect(() => resolve({})).toThrow(
      /reporter is required: an object \{ controller, instance\? \}, got undefined; for example reporter: \{ controller: /,
    );
  });

  it('treats an empty instance (POD_NAME set but empty) as unset, falling back to the controller name', () => {
    const previous = process.env.POD_NAME;
    process.env.POD_NAME = '';
    try {
      expect(
        resolve({ reporter: { controller: 'example.com/widget-controller', instance: process.env.POD_NAME } }).reporter,
      ).toEqual({
        controller: 'example.com/widget-controller',
        instance: 'example.com/widget-controller',
      });
    } finally {
      if (previous === undefined) delete process.env.POD_NAME;
      else process.env.POD_NAME = previous;
    }
  });

  it('says that instance is optional when it is not a string', () => {
    expect(() => resolve({ reporter: { controller: 'widgets', instance: 7 } })).toThrow(
      /reporter\.instance is optional, but must be a string when given, got 7 \(a number\): pass the pod name, or leave it out/,
    );
  });

  it('says that the default instance is the controller when that is too long for an instance', () => {
    const controller = `${'a'.repeat(60)}.${'b'.repeat(60)}.example.com/widgets`;
    expect(() => resolve({ reporter: { controller } })).toThrow(
      /reporter\.instance defaults to reporter\.controller, which is 141 bytes.*pass a shorter reporter\.instance/,
    );
  });
});
