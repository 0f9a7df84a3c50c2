// Validation, as k8s.io/kubernetes/pkg/apis/core/validation/events.go does it
// for events.k8s.io/v1 (core field names: involvedObject, message, source...)

import { isDeepStrictEqual } from 'node:util';
import type { EventMetadata, ObjectReference, StoredEvent } from './types.js';
import { BadValue, FieldError, fieldInvalid, fieldRequired, goQuote } from './field-errors.js';
import {
  bytes,
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDnsSubdomain,
} from './names.js';
import { DecodedEvent } from './event-decoding.js';

export function validateMetadataCommon(metadata: Partial<EventMetadata>): FieldError[] {
  const errors: FieldError[] = [];
  if (!metadata.namespace) errors.push(fieldRequired('metadata.namespace'));
  else
    for (const message of isDns1123Label(metadata.namespace))
      errors.push(fieldInvalid('metadata.namespace', metadata.namespace, message));
  for (const [labelKey, value] of Object.entries(metadata.labels ?? {})) {
    for (const message of isQualifiedName(labelKey)) errors.push(fieldInvalid('metadata.labels', labelKey, message));
    for (const message of isValidLabelValue(value)) errors.push(fieldInvalid('metadata.labels', value, message));
  }
  let annotationBytes = 0;
  for (const [annotationKey, value] of Object.entries(metadata.annotations ?? {})) {
    for (const message of isQualifiedName(annotationKey.toLowerCase()))
      errors.push(fieldInvalid('metadata.annotations', annotationKey, message));
    annotationBytes += bytes(annotationKey) + bytes(value);
  }
  if (annotationBytes > 256 * 1024) {
    errors.push({
      type: 'FieldValueTooLong',
      field: 'metadata.annotations',
      detail: `may not be more than ${256 * 1024} bytes`,
    });
  }
  return errors;
}

export function legacyValidateEvent(event: DecodedEvent, namespace: string): FieldError[] {
  const errors: FieldError[] = [];
  const regardingNamespace = event.regarding.namespace ?? '';
  if (event.eventTime === null) {
    if (regardingNamespace === '' ? namespace !== '' && namespace !== 'default' : namespace !== regardingNamespace) {
      errors.push(fieldInvalid('involvedObject.namespace', regardingNamespace, 'does not match event.namespace'));
    }
  } else {
    if (regardingNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') {
      errors.push(fieldInvalid('involvedObject.namespace', regardingNamespace, 'does not match event.namespace'));
    }
    const controller = event.reportingController ?? '';
    if (controller === '') errors.push(fieldRequired('reportingController'));
    for (const message of isQualifiedName(controller))
      errors.push(fieldInvalid('reportingController', controller, message));
    for (const [field, value, limit] of [
      ['reportingInstance', event.reportingInstance, 128],
      ['action', event.action, 128],
      ['reason', event.reason, 128],
    ] as const) {
      if (!value) errors.push(fieldRequired(field));
      if (value && bytes(value) > limit) errors.push(fieldInvalid(field, '', `can have at most ${limit} characters`));
    }
    if (event.note && bytes(event.note) > 1024)
      errors.push(fieldInvalid('message', '', 'can have at most 1024 characters'));
  }
  for (const message of isDns1123Subdomain(namespace)) errors.push(fieldInvalid('namespace', namespace, message));
  return errors;
}

export function validateSeries(event: DecodedEvent): FieldError[] {
  const errors: FieldError[] = [];
  if (event.series) {
    if (event.series.count < 2) errors.push(fieldInvalid('series.count', '', 'should be at least 2'));
    if (event.series.lastObservedTime === null) errors.push(fieldRequired('series.lastObservedTime'));
  }
  return errors;
}

export function validateEventCreate(event: DecodedEvent, namespace: string): FieldError[] {
  const errors = legacyValidateEvent(event, namespace);
  const { metadata } = event;
  if (metadata.generateName) {
    for (const message of nameIsDnsSubdomain(metadata.generateName, true)) {
      errors.push(fieldInvalid('metadata.generateName', metadata.generateName, message));
    }
  }
  if (!metadata.name) errors.push(fieldRequired('metadata.name', 'name or generateName is required'));
  else
    for (const message of nameIsDnsSubdomain(metadata.name, false))
      errors.push(fieldInvalid('metadata.name', metadata.name, message));
  errors.push(...validateMetadataCommon(metadata));
  errors.push(...validateSeries(event));
  if (event.eventTime === null) errors.push(fieldRequired('eventTime'));
  if (event.type !== 'Normal' && event.type !== 'Warning') {
    errors.push(fieldInvalid('type', '', `has invalid value: ${event.type ?? ''}`));
  }
  if (event.deprecatedFirstTimestamp !== null) errors.push(fieldInvalid('firstTimestamp', '', 'needs to be unset'));
  if (event.deprecatedLastTimestamp !== null) errors.push(fieldInvalid('lastTimestamp', '', 'needs to be unset'));
  if (event.deprecatedCount) errors.push(fieldInvalid('count', '', 'needs to be unset'));
  if (event.deprecatedSource.component || event.deprecatedSource.host)
    errors.push(fieldInvalid('source', '', 'needs to be unset'));
  return errors;
}

export function validateEventUpdate(updated: StoredEvent, old: StoredEvent): FieldError[] {
  const errors = legacyValidateEvent(updated, updated.metadata.namespace);
  const newMeta = updated.metadata;
  const oldMeta = old.metadata;
  if (!newMeta.resourceVersion)
    errors.push(fieldInvalid('metadata.resourceVersion', '', 'must be specified for an update'));
  for (const field of ['name', 'namespace', 'uid', 'generateName'] as const) {
    if ((newMeta[field] ?? '') !== (oldMeta[field] ?? '')) {
      errors.push(fieldInvalid(`metadata.${field}`, newMeta[field] ?? '', 'field is immutable'));
    }
  }
  if (newMeta.creationTimestamp !== oldMeta.creationTimestamp) {
    errors.push(
      fieldInvalid('metadata.creationTimestamp', { go: goTime(newMeta.creationTimestamp) }, 'field is immutable'),
    );
  }
  errors.push(...validateMetadataCommon(newMeta));
  if (!isDeepStrictEqual(updated.series, old.series)) errors.push(...validateSeries(updated));

  const immutable = (field: string, newValue: unknown, oldValue: unknown, bad: BadValue) => {
    if (!isDeepStrictEqual(newValue ?? null, oldValue ?? null))
      errors.push(fieldInvalid(field, bad, 'field is immutable'));
  };
  immutable('involvedObject', updated.regarding, old.regarding, { go: goObjectReference(updated.regarding) });
  immutable('reason', updated.reason, old.reason, updated.reason ?? '');
  immutable('message', updated.note, old.note, updated.note ?? '');
  immutable('source', updated.deprecatedSource, old.deprecatedSource, { go: goEventSource(updated.deprecatedSource) });
  immutable('firstTimestamp', updated.deprecatedFirstTimestamp, old.deprecatedFirstTimestamp, {
    go: goTime(updated.deprecatedFirstTimestamp),
  });
  immutable('lastTimestamp', updated.deprecatedLastTimestamp, old.deprecatedLastTimestamp, {
    go: goTime(updated.deprecatedLastTimestamp),
  });
  immutable('count', updated.deprecatedCount ?? 0, old.deprecatedCount ?? 0, updated.deprecatedCount ?? 0);
  immutable('reason', updated.reason, old.reason, updated.reason ?? '');
  immutable('type', updated.type, old.type, updated.type ?? '');
  immutable('eventTime', updated.eventTime, old.eventTime, { go: goTime(updated.eventTime) });
  immutable('action', updated.action, old.action, updated.action ?? '');
  immutable(
    'related',
    updated.related,
    old.related,
    updated.related ? { go: goObjectReference(updated.related) } : 'null',
  );
  immutable(
    'reportingController',
    updated.reportingController,
    old.reportingController,
    updated.reportingController ?? '',
  );
  immutable('reportingInstance', updated.reportingInstance, old.reportingInstance, updated.reportingInstance ?? '');
  return errors;
}

export function goObjectReference(reference: ObjectReference): string {
  const fields = [
    ['Kind', reference.kind],
    ['Namespace', reference.namespace],
    ['Name', reference.name],
    ['UID', reference.uid],
    ['APIVersion', reference.apiVersion],
    ['ResourceVersion', reference.resourceVersion],
    ['FieldPath', reference.fieldPath],
  ];
  return `core.ObjectReference{${fields.map(([field, value]) => `${field}:${goQuote(value ?? '')}`).join(', ')}}`;
}

export function goEventSource(source: { component?: string; host?: string }): string {
  return `core.EventSource{Component:${goQuote(source.component ?? '')}, Host:${goQuote(source.host ?? '')}}`;
}

/** Go's time.Time String() of a UTC time given as RFC 3339. */
export function goTime(value: string | null | undefined): string {
  if (!value) return '0001-01-01 00:00:00 +0000 UTC';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(value);
  if (!match) return value;
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  return `${match[1]} ${match[2]}${fraction ? `.${fraction}` : ''} +0000 UTC`;
}
