import { Logger } from '@nestjs/common';
import { PUBLISHES_FAILURES_INACTIVE } from '../kube-events.messages.js';

type Method = (...args: unknown[]) => unknown;

/** Where a guard keeps the method it stands in for, for the explorer to wrap. */
const ORIGINAL_METHOD = Symbol('KUBE_EVENTS:publishes-failures:original');

const logger = new Logger('PublishesFailures');

/** Guards that have warned, or whose method the explorer already warned about. */
const quiet = new WeakSet<Method>();

/** The method names the explorer wrapped, per instance. */
const wrappedOn = new WeakMap<object, Set<string | symbol>>();

/**
 * Stands in for a `@PublishesFailures` method until the explorer replaces it
 * on the instance. Called through a reference taken before that (a method
 * bound in the constructor), it goes through the explorer's wrapper. Called
 * on an instance nothing wrapped, the method's failures are not published:
 * it says so once, then calls the method. Keeps `this`, the arguments, the
 * return value (a synchronous method stays synchronous), the name, the
 * length and the Reflect metadata.
 */
export function guardUnwrapped(method: Method, label: string, key: string | symbol): Method {
  const guard = function (this: unknown, ...args: unknown[]): unknown {
    const wrapper = staleReferenceWrapper(this, key, guard);
    if (wrapper) return wrapper.apply(this, args);
    if (!quiet.has(guard) && !isWrappedOn(this, key)) {
      quiet.add(guard);
      logger.warn(PUBLISHES_FAILURES_INACTIVE(label));
    }
    return method.apply(this, args);
  };
  Object.defineProperty(guard, 'name', { value: method.name });
  Object.defineProperty(guard, 'length', { value: method.length });
  Object.defineProperty(guard, ORIGINAL_METHOD, { value: method });
  // Decorators applied before this one recorded their metadata on the method itself.
  for (const metadataKey of Reflect.getOwnMetadataKeys(method)) {
    Reflect.defineMetadata(metadataKey, Reflect.getOwnMetadata(metadataKey, method), guard);
  }
  return guard;
}

/** The decorated method behind a guard; `method` itself when it is not one (another decorator wrapped it). */
export function originalMethod(method: Method): Method {
  return (method as Method & { [ORIGINAL_METHOD]?: Method })[ORIGINAL_METHOD] ?? method;
}

/** Records that the explorer wrapped `key` on `instance`, so a guard still on the call path stays silent. */
export function markWrapped(instance: object, key: string | symbol): void {
  const keys = wrappedOn.get(instance) ?? new Set();
  keys.add(key);
  wrappedOn.set(instance, keys);
}

/** Silences the guard of a method the explorer skipped and has already warned about (request-scoped providers). */
export function silenceGuard(method: Method): void {
  quiet.add(method);
}

function isWrappedOn(instance: unknown, key: string | symbol): boolean {
  return typeof instance === 'object' && instance !== null && wrappedOn.get(instance)?.has(key) === true;
}

/**
 * The explorer's wrapper on `instance` when `guard` was reached through a
 * reference taken before the wrapping, not through the wrapper: the
 * instance's prototype still holds the guard itself, and the instance its
 * wrapper. `undefined` when another decorator wraps the guard: that
 * decorator's function is what the explorer wrapped, and it calls the guard.
 */
function staleReferenceWrapper(instance: unknown, key: string | symbol, guard: Method): Method | undefined {
  if (!isWrappedOn(instance, key)) return undefined;
  const target = instance as Record<string | symbol, unknown>;
  const wrapper = target[key];
  const prototype = Object.getPrototypeOf(target) as Record<string | symbol, unknown> | null;
  return prototype?.[key] === guard && typeof wrapper === 'function' && wrapper !== guard
    ? (wrapper as Method)
    : undefined;
}
