/** Publishes the outcome of one call of a decorated method. */
export interface MethodReporter {
  /** Calls `method` on `self` with `args`, publishes how it ended, and returns (or throws) what it did. */
  call(method: (...args: unknown[]) => unknown, self: unknown, args: unknown[]): unknown;
}

/** The reporters of an instance's decorated methods, by method name. */
export type MethodReporters = ReadonlyMap<string | symbol, MethodReporter>;

const REPORTERS = Symbol('KUBE_EVENTS:publishes-failures:reporters');

/**
 * Hands an instance Nest created the reporters of its decorated methods, in
 * a property of its own that no enumeration shows, where the decorated
 * method finds them through `this`. A later application that provides the
 * same object replaces them.
 */
export function attachReporters(instance: object, reporters: MethodReporters): void {
  Object.defineProperty(instance, REPORTERS, { value: reporters, configurable: true });
}

/** The reporter of the method `key` of `instance`, or `undefined` when no application gave it one. */
export function reporterOf(instance: unknown, key: string | symbol): MethodReporter | undefined {
  if (typeof instance !== 'object' || instance === null) return undefined;
  return (instance as { [REPORTERS]?: MethodReporters })[REPORTERS]?.get(key);
}
