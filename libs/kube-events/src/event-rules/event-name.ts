import { hash } from 'node:crypto';
import { isDnsSubdomain } from './qualified-name.js';

/** A name's limit as a DNS subdomain, less the dot and 16 hex digits of the time. */
const NAME_BASE_MAX = 253 - 17;

/**
 * Names an Event about an object as client-go does: the object's name, a dot,
 * and the time in hexadecimal nanoseconds (`app-config.18c7a3f2b9e4d000`).
 * The server refuses a `generateName` ending in a dot, so the name is made
 * here. The object's name is made a valid DNS subdomain (lower-case labels of
 * `[a-z0-9-]` that start and end alphanumeric) so that objects named like
 * `system:controller:x` or `MyObject` still get Events; `fallback` (the
 * controller name) stands in when nothing of it is usable. The nanoseconds
 * below the millisecond are random, so two replicas publishing about the same
 * object in the same millisecond do not collide.
 */
export function eventName(objectName: string | undefined, fallback: string, epochMs: number): string {
  const base = toDnsSubdomain(objectName ?? '') || toDnsSubdomain(fallback) || 'event';
  // Not a secret, only a spread.
  const nanos = BigInt(Math.floor(epochMs)) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000));
  return `${base}.${nanos.toString(16)}`;
}

/**
 * Names the first Event of a series the same way in every replica that
 * starts it: the object's name (as {@link eventName}), a dot, and 16 hex
 * digits of a digest of `seriesKey` (what makes the series). Two replicas
 * that find no Event to resume and create one at once then meet on that
 * name (`409 AlreadyExists`), and the second adds its count to the
 * first's, rather than leaving a second Event.
 */
export function sharedSeriesEventName(objectName: string | undefined, fallback: string, seriesKey: string): string {
  const base = toDnsSubdomain(objectName ?? '') || toDnsSubdomain(fallback) || 'event';
  return `${base}.${hash('sha256', seriesKey, 'hex').slice(0, 16)}`;
}

function toDnsSubdomain(name: string): string {
  // Already one, as most object names are, and short enough: the steps below would return it as it is.
  if (name.length <= NAME_BASE_MAX && isDnsSubdomain(name)) return name;
  const labels = name
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .split('.')
    .map(trimToAlphanumeric)
    .filter(Boolean);
  return trimToAlphanumeric(labels.join('.').slice(0, NAME_BASE_MAX));
}

function trimToAlphanumeric(label: string): string {
  return label.replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
}
