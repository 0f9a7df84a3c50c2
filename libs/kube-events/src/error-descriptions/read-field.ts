/**
 * Reads `value[key]` whatever `value` is: a getter that throws, a revoked
 * Proxy or a primitive gives `undefined` rather than an exception.
 */
export function readField(value: unknown, key: string): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}
