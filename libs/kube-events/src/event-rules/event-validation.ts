import type { KubernetesObject, V1ObjectReference } from '@kubernetes/client-node';
import { InvalidEventError } from '../errors.js';
import { MAX_FIELD_LENGTH } from '../kube-events.constants.js';
import type { KubeEvent } from '../kube-events.interfaces.js';
import {
  ANNOTATION_NOT_A_STRING,
  ANNOTATIONS_TOO_LARGE,
  FIELD_TOO_LONG,
  INVALID_EVENT_TYPE,
  INVALID_NOTE,
  LABEL_VALUE_INVALID,
  MISSING_RESOURCE,
  MISSING_RESOURCE_TYPE,
  NOT_A_DNS_LABEL,
  NOT_A_STRING,
  NOT_AN_ANNOTATION_KEY,
  NOT_A_LABEL_KEY,
  NOT_AN_OBJECT,
  NOTE_REDACTOR_RETURNED,
  REQUIRED_FIELD,
  UNKNOWN_REFERENCE_FIELD,
  UNREADABLE_FIELD,
} from '../kube-events.messages.js';
import { quotedInput } from '../text/describe-value.js';
import { isLabelValue, isQualifiedName } from './qualified-name.js';
import {
  annotationBytes,
  annotationsFit,
  MAX_CALLER_ANNOTATIONS_BYTES,
  RESERVED_ANNOTATION_BYTES,
} from './annotation-bytes.js';
import { redactedNote } from './note-truncation.js';

/** A DNS-1123 label, the rule for namespace names; its 63-character limit is checked apart. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_LABEL_MAX = 63;

/** The fields of an `ObjectReference`, all strings. */
const REFERENCE_FIELDS: ReadonlySet<string> = new Set([
  'apiVersion',
  'kind',
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'fieldPath',
]);

const EVENT_SHAPE = '{ type, reason, action, note? }';
const RESOURCE_SHAPE = '{ apiVersion, kind, metadata }';
const METADATA_SHAPE = '{ name?, namespace?, uid?, resourceVersion? }';
const REFERENCE_SHAPE = '{ apiVersion?, kind?, name?, namespace?, uid?, resourceVersion?, fieldPath? } of strings';
const ANNOTATIONS_SHAPE = '{ "<qualified name>": "<string>" }';
const LABELS_SHAPE = '{ "<qualified name>": "<label value>" }';

type Fields = Record<string, unknown>;

/**
 * A publish as the recorder keeps it: copies of the fields it read and
 * checked, each read once. Nothing the caller does to its objects after
 * `publish()` returns (a change, a revoked Proxy, a getter that throws)
 * reaches a write, a sink or an error message.
 */
export interface ValidatedPublish {
  readonly resource: KubernetesObject;
  /** As it will be written (note truncated). */
  readonly event: KubeEvent;
}

/**
 * Checks what the API server would refuse, and every value of the wrong
 * JavaScript type, before any request, and returns the publish as it will
 * be written: its note through `redactNote`, then cut to
 * {@link MAX_NOTE_BYTES}. Never throws anything but `InvalidEventError`,
 * whatever it is given.
 * @throws InvalidEventError naming the field at fault
 */
export function validatePublish(
  resource: KubernetesObject,
  event: KubeEvent,
  redactNote: (note: string) => string = (note) => note,
): ValidatedPublish {
  return {
    resource: checkAs('resource', () => checkedResource(resource)),
    event: checkAs('event', () => checkedEvent(event, redactNote)),
  };
}

/** The note as it will be written; a redaction that fails refuses the event rather than let the note through. */
function preparedNote(note: string, redactNote: (note: string) => string): string {
  const prepared = checkAs('note', () => redactedNote(note, redactNote));
  if (typeof prepared !== 'string') throw new InvalidEventError('note', NOTE_REDACTOR_RETURNED(prepared));
  return prepared;
}

/**
 * Runs `check`. What reading the value throws (a getter, a revoked Proxy)
 * becomes a refusal of `field` that keeps it as the cause; the check's own
 * refusals pass as they are.
 */
function checkAs<R>(field: string, check: () => R): R {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidEventError) throw error;
    throw new InvalidEventError(field, UNREADABLE_FIELD(field, error), { cause: error });
  }
}

function checkedEvent(event: KubeEvent, redactNote: (note: string) => string): KubeEvent {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new InvalidEventError('event', NOT_AN_OBJECT('event', EVENT_SHAPE, event));
  }
  const { type, reason, action, note, related, annotations, labels } = event;
  if (type !== 'Normal' && type !== 'Warning') throw new InvalidEventError('type', INVALID_EVENT_TYPE(type));
  checkShortText('reason', reason);
  checkShortText('action', action);
  if (note !== undefined && typeof note !== 'string') throw new InvalidEventError('note', INVALID_NOTE(note));
  return {
    type,
    reason,
    action,
    note: note === undefined ? undefined : preparedNote(note, redactNote),
    related: related === undefined ? undefined : checkAs('related', () => checkedRelated(related)),
    annotations: annotations === undefined ? undefined : checkAs('annotations', () => checkedAnnotations(annotations)),
    labels: labels === undefined ? undefined : checkAs('labels', () => checkedLabels(labels)),
  };
}

function checkedResource(resource: KubernetesObject): KubernetesObject {
  if (resource === undefined || resource === null) throw new InvalidEventError('resource', MISSING_RESOURCE());
  if (typeof resource !== 'object' || Array.isArray(resource)) {
    throw new InvalidEventError('resource', NOT_AN_OBJECT('resource', RESOURCE_SHAPE, resource));
  }
  const metadata: unknown = resource.metadata;
  let copied: KubernetesObject['metadata'];
  if (metadata !== undefined) {
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
      throw new InvalidEventError('resource.metadata', NOT_AN_OBJECT('resource.metadata', METADATA_SHAPE, metadata));
    }
    const { name, namespace, uid, resourceVersion } = metadata as Fields;
    copied = {
      name: optionalString('resource.metadata.name', name),
      namespace: checkNamespace('resource.metadata.namespace', namespace),
      uid: optionalString('resource.metadata.uid', uid),
      resourceVersion: optionalString('resource.metadata.resourceVersion', resourceVersion),
    };
  }
  const { apiVersion, kind } = resource as Fields;
  if (apiVersion === undefined || apiVersion === '') {
    throw new InvalidEventError('resource.apiVersion', MISSING_RESOURCE_TYPE('apiVersion', copied?.name));
  }
  if (typeof apiVersion !== 'string')
    throw new InvalidEventError('resource.apiVersion', NOT_A_STRING('resource.apiVersion', apiVersion));
  if (kind === undefined || kind === '')
    throw new InvalidEventError('resource.kind', MISSING_RESOURCE_TYPE('kind', copied?.name));
  if (typeof kind !== 'string') throw new InvalidEventError('resource.kind', NOT_A_STRING('resource.kind', kind));
  return { apiVersion, kind, metadata: copied };
}

/** A string, or `undefined` for an absent field; anything else is refused. */
function optionalString(field: string, value: unknown): string | undefined {
  if (value !== undefined && typeof value !== 'string') throw new InvalidEventError(field, NOT_A_STRING(field, value));
  return value;
}

/** A namespace, when given and not empty, must be a DNS label: the API server takes nothing else. */
function checkNamespace(field: string, value: unknown): string | undefined {
  const namespace = optionalString(field, value);
  if (namespace && (namespace.length > DNS_LABEL_MAX || !DNS_LABEL.test(namespace))) {
    throw new InvalidEventError(field, NOT_A_DNS_LABEL(field, namespace));
  }
  return namespace;
}

function checkShortText(field: 'reason' | 'action', value: unknown): void {
  if (typeof value !== 'string' || value === '') throw new InvalidEventError(field, REQUIRED_FIELD(field));
  // The server counts bytes; a string this short cannot exceed the limit in UTF-8.
  if (value.length * 3 > MAX_FIELD_LENGTH) {
    const bytes = Buffer.byteLength(value);
    if (bytes > MAX_FIELD_LENGTH) throw new InvalidEventError(field, FIELD_TOO_LONG(field, bytes));
  }
}

/**
 * Whether `value` is written as a JSON object of its own enumerable fields:
 * not an array, nor something with its own JSON form (a `Date`), nor a
 * collection whose entries JSON would drop (`Map`, `Set`).
 */
function isRecord(value: unknown): value is Fields {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as Fields).toJSON !== 'function' &&
    !(value instanceof Map) &&
    !(value instanceof Set)
  );
}

/**
 * `related` is written as an `ObjectReference`: string fields only, its own
 * enumerable ones, copied. Any other field is refused, so a circular or
 * non-JSON value never reaches `JSON.stringify`. Fields set to `undefined`
 * are absent, as in JSON.
 */
function checkedRelated(related: unknown): V1ObjectReference {
  if (!isRecord(related)) throw new InvalidEventError('related', NOT_AN_OBJECT('related', REFERENCE_SHAPE, related));
  const copied: Record<string, string> = {};
  for (const key of Object.keys(related)) {
    const value = related[key];
    if (value === undefined) continue;
    if (!REFERENCE_FIELDS.has(key)) throw new InvalidEventError('related', UNKNOWN_REFERENCE_FIELD(key));
    if (typeof value !== 'string') throw new InvalidEventError(`related.${key}`, NOT_A_STRING(`related.${key}`, value));
    copied[key] = value;
  }
  checkNamespace('related.namespace', copied.namespace);
  return copied;
}

/** The API server's rule for annotation keys: a qualified name once lower-cased. */
function isAnnotationKey(key: string): boolean {
  return isQualifiedName(key.toLowerCase());
}

/** A map of metadata (annotations, labels): a plain object, whose entries set to `undefined` are absent, as in JSON. */
function plainEntries(field: 'annotations' | 'labels', shape: string, value: unknown): [string, unknown][] {
  const prototype: unknown = isRecord(value) ? Object.getPrototypeOf(value) : undefined;
  if (prototype !== Object.prototype && prototype !== null) {
    throw new InvalidEventError(field, NOT_AN_OBJECT(field, shape, value));
  }
  const entries = value as Fields;
  return Object.keys(entries)
    .map((key): [string, unknown] => [key, entries[key]])
    .filter(([, entry]) => entry !== undefined);
}

/** The field of one entry of a map, with its key quoted short: a 2 MB key must not make a 2 MB field name. */
const entryField = (map: 'annotations' | 'labels', key: string) => `${map}[${quotedInput(key)}]`;

/**
 * Annotations as the API server validates them: each key a qualified name
 * (case aside: the server lower-cases it first), each value a string, keys
 * and values together at most 256 KiB of UTF-8; copied.
 */
function checkedAnnotations(annotations: unknown): Record<string, string> {
  // Keys are qualified names, so none is `__proto__`.
  const copied: Record<string, string> = {};
  for (const [key, value] of plainEntries('annotations', ANNOTATIONS_SHAPE, annotations)) {
    if (!isAnnotationKey(key)) {
      const field = entryField('annotations', key);
      throw new InvalidEventError(field, NOT_AN_ANNOTATION_KEY(field, key));
    }
    if (typeof value !== 'string') {
      const field = entryField('annotations', key);
      throw new InvalidEventError(field, ANNOTATION_NOT_A_STRING(field, value));
    }
    copied[key] = value;
  }
  if (!annotationsFit(copied))
    throw new InvalidEventError(
      'annotations',
      ANNOTATIONS_TOO_LARGE(annotationBytes(copied), MAX_CALLER_ANNOTATIONS_BYTES, RESERVED_ANNOTATION_BYTES),
    );
  return copied;
}

/**
 * Labels as the API server validates them: each key a qualified name, as
 * given (no lower-casing, unlike annotation keys), each value a label
 * value (at most 63 characters of `[A-Za-z0-9_.-]`, starting and ending
 * alphanumeric, or empty); copied.
 */
function checkedLabels(labels: unknown): Record<string, string> {
  const copied: Record<string, string> = {};
  for (const [key, value] of plainEntries('labels', LABELS_SHAPE, labels)) {
    const field = entryField('labels', key);
    if (!isQualifiedName(key)) throw new InvalidEventError(field, NOT_A_LABEL_KEY(field, key));
    if (typeof value !== 'string' || !isLabelValue(value))
      throw new InvalidEventError(field, LABEL_VALUE_INVALID(field, value));
    copied[key] = value;
  }
  return copied;
}
