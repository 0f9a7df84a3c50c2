/** Publishes the changes of conditions one call of a decorated method wrote. */
export interface ConditionReporter {
  /** Calls `method` on `self` with `args`, publishes what its status write changed, and returns (or throws) what it did. */
  call(method: (...args: unknown[]) => unknown, self: unknown, args: unknown[]): unknown;
}

/** The reporters of an instance's decorated methods, by method name. */
export type ConditionReporters = ReadonlyMap<string | symbol, ConditionReporter>;

// Its own key, beside `@PublishesFailures`' reporters: both decorators may serve one instance, even one method.
const REPORTERS = Symbol('KUBE_EVENTS:publishes-condition-changes:reporters');

/**
 * Hands an instance Nest created the reporters of its decorated methods, in
 * a property of its own that no enumeration shows, where the decorated
 * method finds them through `this`. A later application that provides the
 * same object replaces them.
 */
export function attachConditionReporters(instance: object, reporters: ConditionReporters): void {
  Object.defineProperty(instance, REPORTERS, { value: reporters, configurable: true });
}

/** The reporter of the method `key` of `instance`, or `undefined` when no application gave it one. */
export function conditionReporterOf(instance: unknown, key: string | symbol): ConditionReporter | undefined {
  if (typeof instance !== 'object' || instance === null) return undefined;
  return (instance as { [REPORTERS]?: ConditionReporters })[REPORTERS]?.get(key);
}
