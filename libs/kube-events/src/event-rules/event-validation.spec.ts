import type { KubernetesObject } from '@kubernetes/client-node';
import { InvalidEventError } from '../errors.js';
import type { KubeEvent } from '../kube-events.interfaces.js';
import { validatePublish } from './event-validation.js';
import { MAX_CALLER_ANNOTATIONS_BYTES } from './annotation-bytes.js';

const configMap = (metadata: Record<string, unknown> = {}): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'app-config', namespace: 'team-a', uid: 'u-1', resourceVersion: '42', ...metadata },
});

const event: KubeEvent = { type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note: 'boom' };

describe('validatePublish redacts notes', () => {
  it('puts the note through the redaction before cutting it, so a cut never leaves part of a credential', () => {
    const secret = 'S3CRET-'.repeat(200);
    const note = `${'x'.repeat(1000)} password=${secret}`;
    const validated = validatePublish(configMap(), { ...event, note }, (text) =>
      text.replace(/password=\S+/, 'password=***'),
    );

    expect(validated.event.note).toBe(`${'x'.repeat(1000)} password=***`);
  });

  it('refuses the event, naming the note, when the redaction throws or returns no string', () => {
    const throwing = () => {
      throw new Error('redactor broke');
    };
    for (const redact of [throwing, () => 42 as unknown as string]) {
      let thrown: unknown;
      try {
        validatePublish(configMap(), event, redact);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InvalidEventError);
      expect((thrown as InvalidEventError).field).toBe('note');
    }
  });
});

/** The InvalidEventError `validatePublish` throws, failing the test on anything else. */
function refusal(resource: unknown, published: unknown): InvalidEventError {
  let thrown: unknown;
  try {
    validatePublish(resource as KubernetesObject, published as KubeEvent);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(InvalidEventError);
  const error = thrown as InvalidEventError;
  // Every message names the field at fault.
  expect(error.message).toContain(error.field);
  return error;
}

const circular = (): Record<string, unknown> => {
  const related: Record<string, unknown> = { kind: 'Pod', name: 'p' };
  related.self = related;
  return related;
};

describe('validatePublish', () => {
  describe('accepts valid input unchanged', () => {
    it.each<[string, KubernetesObject, KubeEvent]>([
      ['a namespaced object', configMap(), event],
      ['a name that is not a DNS subdomain (sanitised elsewhere)', configMap({ name: 'system:controller:x' }), event],
      ['an upper-case name', configMap({ name: 'MyObject' }), event],
      [
        'a cluster-scoped object without namespace',
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'system:controller:x', uid: 'u' },
        },
        event,
      ],
      ['an object with an empty namespace', configMap({ namespace: '' }), event],
      ['an object with neither name nor uid', { apiVersion: 'v1', kind: 'Node', metadata: {} }, event],
      ['an object without metadata', { apiVersion: 'v1', kind: 'Node' }, event],
      ['a 63-character namespace', configMap({ namespace: 'a'.repeat(63) }), event],
      ['an event without note', configMap(), { type: 'Normal', reason: 'Synced', action: 'Sync' }],
      [
        'reason and action of exactly 128 bytes',
        configMap(),
        { ...event, reason: 'R'.repeat(128), action: 'é'.repeat(64) },
      ],
      [
        'a full related reference',
        configMap(),
        {
          ...event,
          related: {
            apiVersion: 'v1',
            kind: 'Pod',
            name: 'web-0',
            namespace: 'team-a',
            uid: 'u-2',
            resourceVersion: '7',
            fieldPath: 'spec.containers{web}',
          },
        },
      ],
      [
        'a related reference with undefined fields',
        configMap(),
        { ...event, related: { kind: 'Node', name: 'n', namespace: undefined } },
      ],
      [
        'annotations with plain and prefixed keys',
        configMap(),
        {
          ...event,
          annotations: { 'example.com/trace-id': 'abc', simple: '', 'Upper.Case_key-1': 'v', 'Example.COM/x': 'v' },
        },
      ],
      [
        'annotations of exactly what callers may use (256 KiB, less the room kept for the recorder)',
        configMap(),
        { ...event, annotations: { k: 'v'.repeat(MAX_CALLER_ANNOTATIONS_BYTES - 1) } },
      ],
    ])('%s', (_label, resource, published) => {
      const validated = validatePublish(resource, published);
      expect(validated.event).toEqual(published);
      expect(validated.resource).toMatchObject(resource);
    });

    it('returns copies, which later changes to what was given do not reach', () => {
      const resource = configMap();
      const published: KubeEvent = {
        ...event,
        related: { kind: 'Pod', name: 'web-0' },
        annotations: { 'example.com/a': 'b' },
      };
      const validated = validatePublish(resource, published);
      resource.metadata!.name = 'renamed';
      published.note = 'changed';
      published.related!.name = 'web-1';
      published.annotations!['example.com/a'] = 'c';
      expect(validated.resource.metadata?.name).toBe('app-config');
      expect(validated.event).toEqual({
        ...event,
        related: { kind: 'Pod', name: 'web-0' },
        annotations: { 'example.com/a': 'b' },
      });
    });

    it('returns the event with its note truncated, never refusing a long note', () => {
      const published = { ...event, note: 'x'.repeat(5000) };
      const written = validatePublish(configMap(), published).event;
      expect(written).toEqual({ ...published, note: `${'x'.repeat(1021)}...` });
      expect(published.note).toHaveLength(5000);
    });

    it('accepts annotations in an object without prototype', () => {
      const annotations = Object.assign(Object.create(null) as Record<string, string>, { 'example.com/a': 'b' });
      expect(validatePublish(configMap(), { ...event, annotations }).event).toEqual({
        ...event,
        annotations: { 'example.com/a': 'b' },
      });
    });
  });

  describe('refuses the event itself', () => {
    it.each<[string, unknown]>([
      ['null', null],
      ['undefined', undefined],
      ['a string', 'Warning'],
      ['a number', 1],
      ['a BigInt', 1n],
      ['a symbol', Symbol('event')],
      ['an array', []],
    ])('%s', (_label, published) => {
      const error = refusal(configMap(), published);
      expect(error.field).toBe('event');
      expect(error.message).toMatch(/^event must be an object \{ type, reason, action, note\? \}, got /);
    });

    it('says what it got', () => {
      expect(refusal(configMap(), null).message).toBe(
        'event must be an object { type, reason, action, note? }, got null.',
      );
    });
  });

  describe('refuses a bad resource', () => {
    it.each<[string, unknown, string]>([
      ['null', null, 'resource'],
      ['a string', 'app-config', 'resource'],
      ['a number', 3, 'resource'],
      ['an array', [], 'resource'],
      ['metadata that is a string', { apiVersion: 'v1', kind: 'ConfigMap', metadata: 'x' }, 'resource.metadata'],
      ['metadata that is null', { apiVersion: 'v1', kind: 'ConfigMap', metadata: null }, 'resource.metadata'],
      ['a missing apiVersion', { kind: 'ConfigMap', metadata: { name: 'a' } }, 'resource.apiVersion'],
      ['an empty apiVersion', { apiVersion: '', kind: 'ConfigMap', metadata: { name: 'a' } }, 'resource.apiVersion'],
      [
        'an apiVersion that is a number',
        { apiVersion: 1, kind: 'ConfigMap', metadata: { name: 'a' } },
        'resource.apiVersion',
      ],
      ['a missing kind', { apiVersion: 'v1', metadata: { name: 'a' } }, 'resource.kind'],
      [
        'a kind that is an object',
        { apiVersion: 'v1', kind: { name: 'ConfigMap' }, metadata: { name: 'a' } },
        'resource.kind',
      ],
      ['a name that is a number', configMap({ name: 42 }), 'resource.metadata.name'],
      ['a name that is a BigInt', configMap({ name: 42n }), 'resource.metadata.name'],
      ['a uid that is a number', configMap({ uid: 7 }), 'resource.metadata.uid'],
      ['a uid that is a symbol', configMap({ uid: Symbol('uid') }), 'resource.metadata.uid'],
      ['a resourceVersion that is a number', configMap({ resourceVersion: 42 }), 'resource.metadata.resourceVersion'],
      ['a namespace that is a number', configMap({ namespace: 1 }), 'resource.metadata.namespace'],
      ['a namespace with invalid characters', configMap({ namespace: 'Bad_NS!' }), 'resource.metadata.namespace'],
      ['an upper-case namespace', configMap({ namespace: 'Team-A' }), 'resource.metadata.namespace'],
      ['a namespace with a dot', configMap({ namespace: 'team.a' }), 'resource.metadata.namespace'],
      ['a namespace ending with a dash', configMap({ namespace: 'team-' }), 'resource.metadata.namespace'],
      ['a 64-character namespace', configMap({ namespace: 'a'.repeat(64) }), 'resource.metadata.namespace'],
      ['a 254-character namespace', configMap({ namespace: 'a'.repeat(254) }), 'resource.metadata.namespace'],
    ])('%s', (_label, resource, field) => {
      expect(refusal(resource, event).field).toBe(field);
    });

    it('keeps the message about a missing kind, naming the object', () => {
      expect(refusal({ apiVersion: 'v1', metadata: { name: 'a' } }, event).message).toMatch(
        /^resource\.kind is missing on "a": `kubectl describe` finds Events by kind/,
      );
    });
  });

  describe('refuses bad type, reason, action and note', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['a type other than Normal or Warning', { type: 'Error' }, 'type'],
      ['a missing type', { type: undefined }, 'type'],
      ['a type that is a BigInt', { type: 1n }, 'type'],
      ['a type that is a symbol', { type: Symbol('Normal') }, 'type'],
      ['an empty reason', { reason: '' }, 'reason'],
      ['a reason that is a number', { reason: 1 }, 'reason'],
      ['a reason over 128 bytes', { reason: 'R'.repeat(129) }, 'reason'],
      ['a reason of 64 characters but 192 bytes', { reason: '€'.repeat(64) }, 'reason'],
      ['an empty action', { action: '' }, 'action'],
      ['an action that is null', { action: null }, 'action'],
      ['an action over 128 bytes', { action: 'A'.repeat(129) }, 'action'],
      ['a note that is a number', { note: 1 }, 'note'],
      ['a note that is null', { note: null }, 'note'],
    ])('%s', (_label, change, field) => {
      expect(refusal(configMap(), { ...event, ...change }).field).toBe(field);
    });

    it('keeps the existing messages', () => {
      expect(refusal(configMap(), { ...event, reason: '' }).message).toBe(
        'reason is required and must be a non-empty string.',
      );
      expect(refusal(configMap(), { ...event, type: 'Error' }).message).toBe(
        `type must be 'Normal' or 'Warning', got "Error".`,
      );
      expect(refusal(configMap(), { ...event, type: 1n }).message).toBe(
        `type must be 'Normal' or 'Warning', got 1n (a BigInt).`,
      );
    });
  });

  describe('refuses a bad related reference', () => {
    it.each<[string, unknown, string]>([
      ['a string', 'pod/web-0', 'related'],
      ['null', null, 'related'],
      ['an array', [{ kind: 'Pod' }], 'related'],
      ['a Date', new Date(0), 'related'],
      ['a Map', new Map([['kind', 'Pod']]), 'related'],
      ['an unknown field', { kind: 'Pod', name: 'p', labels: { app: 'web' } }, 'related'],
      ['a circular reference', circular(), 'related'],
      ['a field that is a BigInt', { kind: 'Pod', uid: 1n }, 'related.uid'],
      ['a field that is a number', { kind: 'Pod', name: 1 }, 'related.name'],
      ['a field that is a function', { kind: () => 'Pod', name: 'p' }, 'related.kind'],
      ['a field that is null', { kind: 'Pod', resourceVersion: null }, 'related.resourceVersion'],
      ['a namespace that is not a DNS label', { kind: 'Pod', name: 'p', namespace: 'Bad_NS!' }, 'related.namespace'],
      ['a namespace that is a number', { kind: 'Pod', name: 'p', namespace: 5 }, 'related.namespace'],
    ])('%s', (_label, related, field) => {
      expect(refusal(configMap(), { ...event, related }).field).toBe(field);
    });

    it('names the unknown field', () => {
      expect(refusal(configMap(), { ...event, related: circular() }).message).toContain('"self"');
    });
  });

  describe('refuses bad annotations', () => {
    it.each<[string, unknown, string]>([
      ['a string', 's', 'annotations'],
      ['null', null, 'annotations'],
      ['an array', ['a'], 'annotations'],
      ['a Map', new Map([['a', 'b']]), 'annotations'],
      ['a key with a space and a bang', { 'bad key!': 'v' }, 'annotations["bad key!"]'],
      ['an empty key', { '': 'v' }, 'annotations[""]'],
      ['a key starting with a dash', { '-key': 'v' }, 'annotations["-key"]'],
      ['a key with an empty prefix', { '/key': 'v' }, 'annotations["/key"]'],
      ['a key with two slashes', { 'a/b/c': 'v' }, 'annotations["a/b/c"]'],
      [
        'a key with a prefix that is not a DNS subdomain',
        { 'exa_mple.com/key': 'v' },
        'annotations["exa_mple.com/key"]',
      ],
      [
        'a key with a prefix over 253 characters, quoted short in the field',
        { [`${'a'.repeat(254)}/key`]: 'v' },
        `annotations["${'a'.repeat(80)}"… (258 characters)]`,
      ],
      [
        'a key whose name is over 63 characters',
        { [`example.com/${'k'.repeat(64)}`]: 'v' },
        `annotations["example.com/${'k'.repeat(64)}"]`,
      ],
      ['a value that is a number', { 'example.com/count': 1 }, 'annotations["example.com/count"]'],
      ['a value that is a BigInt', { 'example.com/count': 1n }, 'annotations["example.com/count"]'],
      ['a value that is an object', { 'example.com/obj': { a: 'b' } }, 'annotations["example.com/obj"]'],
      ['a value that is null', { 'example.com/none': null }, 'annotations["example.com/none"]'],
      ['more than 256 KiB in all', { a: 'v'.repeat(128 * 1024), b: 'v'.repeat(128 * 1024) }, 'annotations'],
      ['more than 256 KiB of UTF-8 in fewer characters', { k: '€'.repeat(90_000) }, 'annotations'],
    ])('%s', (_label, annotations, field) => {
      expect(refusal(configMap(), { ...event, annotations }).field).toBe(field);
    });

    it('counts keys and values in bytes against the 256 KiB limit, less the room kept for the recorder', () => {
      // 1 byte of key + 261631 bytes of value fits; one more byte does not.
      expect(MAX_CALLER_ANNOTATIONS_BYTES).toBe(256 * 1024 - 512);
      expect(() => validatePublish(configMap(), { ...event, annotations: { k: 'v'.repeat(261_631) } })).not.toThrow();
      expect(refusal(configMap(), { ...event, annotations: { k: 'v'.repeat(261_632) } }).message).toContain(
        "at most 261632 bytes of keys and values, in UTF-8 (the API server's 256 KiB, less 512 kept for the recorder's own), got 261633",
      );
    });
  });

  describe('labels, checked as the API server checks them', () => {
    it.each<[string, Record<string, string>]>([
      ['plain and prefixed keys', { app: 'shop', 'app.kubernetes.io/part-of': 'shop', 'Upper.Case_key-1': 'V_1.a-2' }],
      ['an empty value', { 'example.com/empty': '' }],
      ['a 63-character name and value', { ['k'.repeat(63)]: 'v'.repeat(63) }],
      ['a 253-character prefix', { [`${'p'.repeat(253)}/name`]: 'v' }],
    ])('accepts %s', (_label, labels) => {
      expect(validatePublish(configMap(), { ...event, labels }).event).toEqual({ ...event, labels });
    });

    it.each<[string, unknown, string]>([
      ['a string', 'app=shop', 'labels'],
      ['an array', ['app'], 'labels'],
      ['a Map', new Map([['app', 'shop']]), 'labels'],
      ['a key with a space', { 'bad key': 'v' }, 'labels["bad key"]'],
      ['an empty key', { '': 'v' }, 'labels[""]'],
      ['a key with an empty prefix', { '/app': 'v' }, 'labels["/app"]'],
      ['a key with two slashes', { 'a/b/c': 'v' }, 'labels["a/b/c"]'],
      [
        'a prefix with upper case (labels are not lower-cased)',
        { 'Example.com/app': 'v' },
        'labels["Example.com/app"]',
      ],
      ['a name over 63 characters', { ['k'.repeat(64)]: 'v' }, `labels["${'k'.repeat(64)}"]`],
      ['a value over 63 characters', { app: 'v'.repeat(64) }, 'labels["app"]'],
      ['a value ending in a dash', { app: 'shop-' }, 'labels["app"]'],
      ['a value with a slash', { app: 'a/b' }, 'labels["app"]'],
      ['a value that is a number', { replicas: 3 }, 'labels["replicas"]'],
      ['a value that is null', { app: null }, 'labels["app"]'],
    ])('refuses %s, naming the field and the key', (_label, labels, field) => {
      const error = refusal(configMap(), { ...event, labels });
      expect(error.field).toBe(field);
      expect(error.message.startsWith(field === 'labels' ? 'labels must be an object' : field)).toBe(true);
    });

    it('says what a label value may be', () => {
      expect(refusal(configMap(), { ...event, labels: { app: 'shop-' } }).message).toBe(
        'labels["app"] must be a label value (a string of at most 63 characters of [A-Za-z0-9_.-], starting and ' +
          'ending alphanumeric, or empty), got "shop-".',
      );
    });

    it('leaves out keys set to undefined, as JSON does, and returns a copy', () => {
      const labels: Record<string, string | undefined> = { app: 'shop', gone: undefined };
      const validated = validatePublish(configMap(), { ...event, labels: labels as Record<string, string> });
      labels.app = 'changed';
      expect(validated.event.labels).toEqual({ app: 'shop' });
    });
  });

  it('throws nothing but InvalidEventError, whatever it is given', () => {
    const odd: unknown[] = [
      null,
      undefined,
      0,
      -1,
      NaN,
      true,
      '',
      'x',
      1n,
      Symbol('s'),
      () => 1,
      [],
      [1],
      {},
      new Date(0),
      new Map(),
      circular(),
    ];
    const fields = ['apiVersion', 'kind', 'metadata'];
    const metadataFields = ['name', 'namespace', 'uid', 'resourceVersion'];
    const eventFields = ['type', 'reason', 'action', 'note', 'related', 'annotations'];
    const attempts: [unknown, unknown][] = [];
    for (const value of odd) {
      attempts.push([value, event], [configMap(), value]);
      for (const field of fields) attempts.push([{ ...configMap(), [field]: value }, event]);
      for (const field of metadataFields) attempts.push([configMap({ [field]: value }), event]);
      for (const field of eventFields) attempts.push([configMap(), { ...event, [field]: value }]);
      attempts.push(
        [configMap(), { ...event, related: { kind: value } }],
        [configMap(), { ...event, annotations: { a: value } }],
      );
    }
    for (const [resource, published] of attempts) {
      try {
        validatePublish(resource as KubernetesObject, published as KubeEvent);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidEventError);
      }
    }
  });

  describe('refuses what cannot be read, naming it, with what reading it threw as the cause', () => {
    const revoked = () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    };
    const throwingGetter = (error: Error) =>
      Object.defineProperty({ ...configMap() }, 'metadata', {
        get: () => {
          throw error;
        },
      });

    it.each([
      ['a revoked Proxy as the resource', () => [revoked(), event], 'resource'],
      ['a revoked Proxy as the event', () => [configMap(), revoked()], 'event'],
      ['a revoked Proxy as related', () => [configMap(), { ...event, related: revoked() }], 'related'],
      ['a revoked Proxy as annotations', () => [configMap(), { ...event, annotations: revoked() }], 'annotations'],
    ])('%s', (_, given, field) => {
      const [resource, published] = given();
      const error = refusal(resource, published);
      expect(error.field).toBe(field);
      expect(error.cause).toBeInstanceOf(TypeError);
      expect(error.message).toContain((error.cause as Error).message);
    });

    it('names the field whose value is a revoked Proxy, when it is of the wrong type anyway', () => {
      const error = refusal(configMap(), { ...event, type: revoked() });
      expect(error.field).toBe('type');
      expect(error.message).toContain('an object that cannot be read');
    });

    it('keeps the error of a getter that throws as the cause', () => {
      const thrown = new Error('metadata is not loaded yet');
      const error = refusal(throwingGetter(thrown), event);
      expect(error.field).toBe('resource');
      expect(error.cause).toBe(thrown);
      expect(error.message).toContain('metadata is not loaded yet');
    });
  });
});
