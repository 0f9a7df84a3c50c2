/** The server cuts a generateName to 58 characters before adding 5 random ones. */
const GENERATE_NAME_MAX = 58;

/**
 * Makes the `generateName` of an Event about an object: the object's name
 * and a dot, made a valid DNS-subdomain prefix (lower-case labels of
 * `[a-z0-9-]` that start and end alphanumeric) so that objects named like
 * `system:controller:x` or `MyObject` still get Events. Falls back to
 * `fallback` (the controller name) when the object's name has nothing usable.
 */
export function eventGenerateName(objectName: string | undefined, fallback: string): string {
  const base = toDnsSubdomain(objectName ?? '') || toDnsSubdomain(fallback) || 'event';
  return `${base}.`;
}

function toDnsSubdomain(name: string): string {
  const labels = name
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .split('.')
    .map(trimToAlphanumeric)
    .filter(Boolean);
  return trimToAlphanumeric(labels.join('.').slice(0, GENERATE_NAME_MAX - 1));
}

function trimToAlphanumeric(label: string): string {
  return label.replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
}
