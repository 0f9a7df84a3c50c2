// JSON helpers: type names as Go reports them, RFC 7386 merge patch.

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): Record<string, unknown> {
  return mergeValue(target, patch) as Record<string, unknown>;
}

export function mergeValue(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) delete result[field];
    else result[field] = mergeValue(result[field], value);
  }
  return result;
}
