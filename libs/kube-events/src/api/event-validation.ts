import type { KubernetesObject } from '@kubernetes/client-node';
import { InvalidEventError } from '../errors.js';
import { MAX_FIELD_LENGTH } from '../kube-events.constants.js';
import type { KubeEvent } from '../kube-events.interfaces.js';
import {
  FIELD_TOO_LONG,
  INVALID_EVENT_TYPE,
  INVALID_NOTE,
  MISSING_RESOURCE,
  MISSING_RESOURCE_TYPE,
  REQUIRED_FIELD,
} from '../kube-events.messages.js';
import { truncateNote } from './note-truncation.js';

/**
 * Checks what the API server would refuse, before any request, and returns
 * the event as it will be written (note truncated).
 * @throws InvalidEventError naming the field at fault
 */
export function validateEvent(resource: KubernetesObject, event: KubeEvent): KubeEvent {
  if (!resource || typeof resource !== 'object') throw new InvalidEventError('resource', MISSING_RESOURCE());
  const name = resource.metadata?.name;
  if (!resource.apiVersion) throw new InvalidEventError('resource.apiVersion', MISSING_RESOURCE_TYPE('apiVersion', name));
  if (!resource.kind) throw new InvalidEventError('resource.kind', MISSING_RESOURCE_TYPE('kind', name));
  if (!event || typeof event !== 'object') throw new InvalidEventError('event', REQUIRED_FIELD('event'));
  if (event.type !== 'Normal' && event.type !== 'Warning') throw new InvalidEventError('type', INVALID_EVENT_TYPE(event.type));
  checkShortText('reason', event.reason);
  checkShortText('action', event.action);
  if (event.note !== undefined && typeof event.note !== 'string') throw new InvalidEventError('note', INVALID_NOTE(event.note));
  const note = event.note === undefined ? undefined : truncateNote(event.note);
  return note === event.note ? event : { ...event, note };
}

function checkShortText(field: 'reason' | 'action', value: unknown): void {
  if (typeof value !== 'string' || value === '') throw new InvalidEventError(field, REQUIRED_FIELD(field));
  // The server counts bytes; a string this short cannot exceed the limit in UTF-8.
  if (value.length * 3 > MAX_FIELD_LENGTH) {
    const bytes = Buffer.byteLength(value);
    if (bytes > MAX_FIELD_LENGTH) throw new InvalidEventError(field, FIELD_TOO_LONG(field, bytes));
  }
}
