import type { Logger } from '@nestjs/common';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { PublishesFailuresOptions } from './publishes-failures.decorator.js';
import type { EventRecorder } from '../recorder/event-recorder.js';
import { RECONCILE_ACTION, RECONCILE_FAILED_REASON } from '../kube-events.constants.js';
import { FAILURE_NOT_PUBLISHED, NO_RESOURCE_ARGUMENT, RECONCILED_OBJECT_NOT_FOUND } from '../kube-events.messages.js';
import { PublishUnreachableError } from '../errors.js';
import { describeError } from '../notes/describe-error.js';

type Method = (...args: unknown[]) => unknown;

/** The outage (its start) each recorder last logged as unreachable. */
const outageLogged = new WeakMap<EventRecorder, number>();

/**
 * Wraps a reconcile method so that failures become Warning events and a
 * success resets the object's failure series. Keeps `this`, the arguments,
 * the return value, the original error, the name, the length and the Reflect metadata
 * (of `metadataOf`, the method as found on the prototype, when given).
 */
export function withFailureEvents(
  method: Method,
  label: string,
  recorder: EventRecorder,
  options: PublishesFailuresOptions,
  logger: Logger,
  metadataOf: Method = method,
): Method {
  const resourceOf = (args: unknown[]) => reconciledObject(args, options);
  const notPublished = (problem: unknown) => {
    // While the server is down every failure would say so: once per outage and recorder is enough.
    if (problem instanceof PublishUnreachableError) {
      if (outageLogged.get(recorder) === problem.since.getTime()) return;
      outageLogged.set(recorder, problem.since.getTime());
    }
    logger.warn(`${FAILURE_NOT_PUBLISHED(label)}: ${describeError(problem)}`);
  };
  // Neither may ever replace the reconcile's own outcome: the user's selector and note formatter may throw.
  const report = (error: unknown, args: unknown[]): Promise<void> => {
    try {
      const resource = resourceOf(args);
      if (!resource) {
        logger.warn(NO_RESOURCE_ARGUMENT(label));
        return Promise.resolve();
      }
      const event = {
        type: 'Warning' as const,
        reason: options.reason ?? RECONCILE_FAILED_REASON,
        action: options.action ?? RECONCILE_ACTION,
        note: noteOf(error, options),
      };
      return recorder.publishFailure(resource, event).catch(notPublished);
    } catch (problem) {
      notPublished(problem);
      return Promise.resolve();
    }
  };
  const succeeded = (args: unknown[]) => {
    try {
      const resource = resourceOf(args);
      if (resource) recorder.forgetFailures(resource);
    } catch (problem) {
      logger.warn(RECONCILED_OBJECT_NOT_FOUND(label, describeError(problem)));
    }
  };

  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    let result: unknown;
    try {
      result = method.apply(this, args);
    } catch (error) {
      void report(error, args);
      throw error;
    }
    if (!isPromiseLike(result)) {
      succeeded(args);
      return result;
    }
    return Promise.resolve(result).then(
      (value) => {
        succeeded(args);
        return value;
      },
      async (error: unknown) => {
        await report(error, args);
        throw error;
      },
    );
  };
  Object.defineProperty(wrapped, 'name', { value: method.name });
  Object.defineProperty(wrapped, 'length', { value: method.length });
  // Other decorators read their metadata from the function they decorated.
  for (const key of Reflect.getMetadataKeys(metadataOf)) {
    Reflect.defineMetadata(key, Reflect.getMetadata(key, metadataOf), wrapped);
  }
  return wrapped;
}

function reconciledObject(args: unknown[], options: PublishesFailuresOptions): KubernetesObject | undefined {
  const selector = options.resourceArg ?? 0;
  const candidate = typeof selector === 'function' ? selector(...args) : args[selector];
  if (!candidate || typeof candidate !== 'object' || !('metadata' in candidate)) return undefined;
  const resource = candidate as KubernetesObject;
  if ((resource.apiVersion || !options.apiVersion) && (resource.kind || !options.kind)) return resource;
  return { ...resource, apiVersion: resource.apiVersion || options.apiVersion, kind: resource.kind || options.kind };
}

function noteOf(error: unknown, options: PublishesFailuresOptions): string {
  if (options.note) return options.note(error);
  return describeError(error);
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
