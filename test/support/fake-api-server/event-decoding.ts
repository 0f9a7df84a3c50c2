// Decoding, as the API server's JSON decoder does it into an events.k8s.io/v1 Event

import type { EventMetadata, ObjectReference, StoredEvent } from './types.js';
import { GROUP_VERSION, MICRO_TIME_LAYOUT, TIME_LAYOUT } from './protocol.js';
import { goQuote } from './field-errors.js';
import { isObject, jsonType } from './json.js';

export type DecodedMetadata = Partial<EventMetadata>;
export type DecodedEvent = Omit<StoredEvent, 'metadata'> & { metadata: DecodedMetadata };

export class DecodeError extends Error {}

export const KNOWN_FIELDS = new Set([
  'kind',
  'apiVersion',
  'metadata',
  'eventTime',
  'series',
  'reportingController',
  'reportingInstance',
  'action',
  'reason',
  'regarding',
  'related',
  'note',
  'type',
  'deprecatedSource',
  'deprecatedFirstTimestamp',
  'deprecatedLastTimestamp',
  'deprecatedCount',
]);

/** Decodes an Event, or returns the decoder's error message. */
export function decodeEvent(raw: Record<string, unknown>): { event: DecodedEvent; unknownFields: string[] } | string {
  try {
    const metadata = optionalObject(raw, 'metadata', 'Event.metadata') ?? {};
    const series = optionalObject(raw, 'series', 'Event.series');
    const regarding = optionalObject(raw, 'regarding', 'Event.regarding');
    const related = optionalObject(raw, 'related', 'Event.related');
    const source = optionalObject(raw, 'deprecatedSource', 'Event.deprecatedSource') ?? {};
    const event: DecodedEvent = {
      kind: 'Event',
      apiVersion: GROUP_VERSION,
      metadata: {
        name: optionalString(metadata, 'name', 'ObjectMeta.metadata.name'),
        generateName: optionalString(metadata, 'generateName', 'ObjectMeta.metadata.generateName'),
        namespace: optionalString(metadata, 'namespace', 'ObjectMeta.metadata.namespace'),
        uid: optionalString(metadata, 'uid', 'ObjectMeta.metadata.uid'),
        resourceVersion: optionalString(metadata, 'resourceVersion', 'ObjectMeta.metadata.resourceVersion'),
        creationTimestamp: decodeTime(metadata.creationTimestamp, TIME_LAYOUT) ?? undefined,
        labels: optionalStringMap(metadata, 'labels', 'ObjectMeta.metadata.labels'),
        annotations: optionalStringMap(metadata, 'annotations', 'ObjectMeta.metadata.annotations'),
      },
      eventTime: decodeTime(raw.eventTime, MICRO_TIME_LAYOUT),
      series: series && {
        count: int32(series.count, 'EventSeries.series.count'),
        lastObservedTime: decodeTime(series.lastObservedTime, MICRO_TIME_LAYOUT),
      },
      reportingController: optionalString(raw, 'reportingController', 'Event.reportingController'),
      reportingInstance: optionalString(raw, 'reportingInstance', 'Event.reportingInstance'),
      action: optionalString(raw, 'action', 'Event.action'),
      reason: optionalString(raw, 'reason', 'Event.reason'),
      regarding: decodeReference(regarding, 'Event.regarding'),
      related: related && decodeReference(related, 'Event.related'),
      note: optionalString(raw, 'note', 'Event.note'),
      type: optionalString(raw, 'type', 'Event.type'),
      deprecatedSource: {
        component: optionalString(source, 'component', 'Event.deprecatedSource.component'),
        host: optionalString(source, 'host', 'Event.deprecatedSource.host'),
      },
      deprecatedFirstTimestamp: decodeTime(raw.deprecatedFirstTimestamp, TIME_LAYOUT),
      deprecatedLastTimestamp: decodeTime(raw.deprecatedLastTimestamp, TIME_LAYOUT),
      deprecatedCount: raw.deprecatedCount == null ? undefined : int32(raw.deprecatedCount, 'Event.deprecatedCount'),
    };
    return { event, unknownFields: Object.keys(raw).filter((field) => !KNOWN_FIELDS.has(field)) };
  } catch (error) {
    if (error instanceof DecodeError) return error.message;
    throw error;
  }
}

export function unmarshalError(value: unknown, goField: string, goType: string): DecodeError {
  const shown = typeof value === 'number' ? `number ${value}` : jsonType(value);
  return new DecodeError(`json: cannot unmarshal ${shown} into Go struct field ${goField} of type ${goType}`);
}

export function optionalString(source: Record<string, unknown>, field: string, goField: string): string | undefined {
  const value = source[field];
  if (value == null || value === '') return undefined;
  if (typeof value !== 'string') throw unmarshalError(value, goField, 'string');
  return value;
}

export function optionalObject(
  source: Record<string, unknown>,
  field: string,
  goField: string,
): Record<string, unknown> | undefined {
  const value = source[field];
  if (value == null) return undefined;
  if (!isObject(value)) throw unmarshalError(value, goField, 'struct');
  return value;
}

export function optionalStringMap(
  source: Record<string, unknown>,
  field: string,
  goField: string,
): Record<string, string> | undefined {
  const value = optionalObject(source, field, goField);
  if (!value) return undefined;
  for (const entry of Object.values(value)) {
    if (typeof entry !== 'string') throw unmarshalError(entry, goField, 'string');
  }
  return Object.keys(value).length > 0 ? (value as Record<string, string>) : undefined;
}

export function int32(value: unknown, goField: string): number {
  if (value == null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value > 2 ** 31 - 1 || value < -(2 ** 31)) {
    throw unmarshalError(value, goField, 'int32');
  }
  return value;
}

export function decodeReference(source: Record<string, unknown> | undefined, goField: string): ObjectReference {
  const reference: ObjectReference = {};
  if (!source) return reference;
  for (const field of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const) {
    const value = optionalString(source, field, `${goField}.${field}`);
    if (value !== undefined) reference[field] = value;
  }
  return reference;
}

/**
 * Go's time.Parse with layout MicroTime (`RFC3339Micro`, exactly six
 * fractional digits) or Time (RFC 3339, optional fraction). Returns the time in
 * UTC, six digits for MicroTime and none for Time, as the server stores them;
 * `null` for JSON null.
 */
export function decodeTime(value: unknown, layout: string): string | null {
  if (value == null) return null;
  if (typeof value !== 'string')
    throw new DecodeError(`json: cannot unmarshal ${jsonType(value)} into Go value of type string`);
  const micro = layout === MICRO_TIME_LAYOUT;
  const fail = (rest: string, element: string) =>
    new DecodeError(
      `parsing time ${goQuote(value)} as ${goQuote(layout)}: cannot parse ${goQuote(rest)} as ${goQuote(element)}`,
    );
  const head = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(value);
  if (!head) throw fail(value, '2006');
  let rest = value.slice(head[0].length);
  let fraction = '';
  if (micro) {
    const digits = /^[.,](\d{6})/.exec(rest);
    if (!digits) throw fail(rest, '.000000');
    fraction = digits[1]!;
    rest = rest.slice(7);
  } else {
    const digits = /^[.,](\d+)/.exec(rest);
    if (digits) rest = rest.slice(digits[0].length);
  }
  const zone = /^(Z|([+-])(\d{2}):(\d{2}))/.exec(rest);
  if (!zone) throw fail(rest, 'Z07:00');
  if (rest.length > zone[0].length) {
    throw new DecodeError(`parsing time ${goQuote(value)}: extra text: ${goQuote(rest.slice(zone[0].length))}`);
  }
  const [year, month, day, hour, minute, second] = head.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const outOfRange = (what: string) => new DecodeError(`parsing time ${goQuote(value)}: ${what} out of range`);
  if (month < 1 || month > 12) throw outOfRange('month');
  if (day < 1 || day > daysInMonth) throw outOfRange('day');
  if (hour > 23) throw outOfRange('hour');
  if (minute > 59) throw outOfRange('minute');
  if (second > 59) throw outOfRange('second');
  let offsetMinutes = 0;
  if (zone[1] !== 'Z') offsetMinutes = (zone[2] === '-' ? -1 : 1) * (Number(zone[3]) * 60 + Number(zone[4]));
  const utcMs = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000;
  const seconds = formatTime(utcMs);
  return micro ? `${seconds.slice(0, -1)}.${fraction}Z` : seconds;
}

/** RFC 3339 in UTC with whole seconds, as metav1.Time marshals. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// Canonical form: what the server would encode, in Go's field order

export function canonicalEvent(event: DecodedEvent & { metadata: EventMetadata }): StoredEvent {
  const { metadata } = event;
  const canonicalMetadata = compact({
    name: metadata.name,
    generateName: metadata.generateName,
    namespace: metadata.namespace,
    uid: metadata.uid,
    resourceVersion: metadata.resourceVersion,
    creationTimestamp: metadata.creationTimestamp,
    labels: metadata.labels,
    annotations: metadata.annotations,
  }) as unknown as EventMetadata;
  return compact({
    kind: 'Event',
    apiVersion: GROUP_VERSION,
    metadata: canonicalMetadata,
    eventTime: event.eventTime,
    series: event.series,
    reportingController: event.reportingController,
    reportingInstance: event.reportingInstance,
    action: event.action,
    reason: event.reason,
    regarding: compact({ ...event.regarding }),
    related: event.related && compact({ ...event.related }),
    note: event.note,
    type: event.type,
    deprecatedSource: compact({ ...event.deprecatedSource }),
    deprecatedFirstTimestamp: event.deprecatedFirstTimestamp,
    deprecatedLastTimestamp: event.deprecatedLastTimestamp,
    // The API server omits a zero count (omitempty).
    deprecatedCount: event.deprecatedCount === 0 ? undefined : event.deprecatedCount,
  }) as unknown as StoredEvent;
}

/** Drops undefined and empty-string fields (Go's omitempty); keeps nulls. */
export function compact<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined && value !== '')) as T;
}
