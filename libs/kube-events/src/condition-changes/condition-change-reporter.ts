import type { Logger } from '@nestjs/common';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { EventRecorder } from '../recorder/event-recorder.js';
import type { StatusCondition } from '../conditions/condition-changes.js';
import { conditionChangeEvents } from '../conditions/condition-change-events.js';
import { describeError } from '../error-descriptions/describe-error.js';
import { CONDITION_CHANGES_NOT_PUBLISHED, NO_READ_OBJECT, NO_WRITTEN_OBJECT } from '../kube-events.messages.js';
import { isPromiseLike } from '../values/promise-like.js';
import type { MethodReporter } from '../decorated-methods/reported-methods.js';
import type { PublishesConditionChangesOptions } from './publishes-condition-changes.decorator.js';

type Method = (...args: unknown[]) => unknown;

/**
 * Publishes the changes of conditions that the calls of one decorated
 * method wrote, in one application: after the method resolved, never when
 * it threw. Keeps `this`, the arguments, the result and the error; a
 * synchronous method stays synchronous (its changes are published in the
 * background).
 */
export class ConditionChangeReporter implements MethodReporter {
  constructor(
    private readonly label: string,
    private readonly recorder: EventRecorder,
    private readonly logger: Logger,
    private readonly options: PublishesConditionChangesOptions,
  ) {}

  call(method: Method, self: unknown, args: unknown[]): unknown {
    const result = method.apply(self, args);
    if (!isPromiseLike(result)) {
      void this.published(result, args);
      return result;
    }
    return Promise.resolve(result).then(async (value) => {
      await this.published(value, args);
      return value;
    });
  }

  /** Publishes the changes; resolves once their writes are scheduled, and logs what becomes of them. Never rejects. */
  private published(result: unknown, args: unknown[]): Promise<unknown> {
    const { options, label, recorder, logger } = this;
    try {
      const written = options.written ? options.written(result, ...args) : result;
      if (written === undefined || written === null) return Promise.resolve();
      const read = objectOf(readObject(args, options), options);
      const after = objectOf(written, options);
      if (!after) {
        logger.warn(NO_WRITTEN_OBJECT(label));
        return Promise.resolve();
      }
      if (!read) {
        logger.warn(NO_READ_OBJECT(label));
        return Promise.resolve();
      }
      const events = conditionChangeEvents(conditionsOf(read), conditionsOf(after), options);
      const resource = withIdentity(after, read);
      return Promise.all(
        events.map((event) => {
          const publish = recorder.schedulePublish(resource, event, false);
          publish.written.catch((problem: unknown) => this.notPublished(problem));
          return publish.scheduled.catch(() => undefined);
        }),
      );
    } catch (problem) {
      this.notPublished(problem);
      return Promise.resolve();
    }
  }

  private notPublished(problem: unknown): void {
    this.logger.warn(`${CONDITION_CHANGES_NOT_PUBLISHED(this.label)}: ${describeError(problem)}`);
  }
}

function readObject(args: unknown[], options: PublishesConditionChangesOptions): unknown {
  const selector = options.resourceArg ?? 0;
  return typeof selector === 'function' ? selector(...args) : args[selector];
}

/** `candidate` as an object with metadata, its `apiVersion` and `kind` filled in from the options; else `undefined`. */
function objectOf(candidate: unknown, options: PublishesConditionChangesOptions): KubernetesObject | undefined {
  if (!candidate || typeof candidate !== 'object' || !('metadata' in candidate)) return undefined;
  const resource = candidate as KubernetesObject;
  if ((resource.apiVersion || !options.apiVersion) && (resource.kind || !options.kind)) return resource;
  return { ...resource, apiVersion: resource.apiVersion || options.apiVersion, kind: resource.kind || options.kind };
}

/** The object as written, with the `apiVersion` and `kind` of the object as read when its answer lacks them. */
function withIdentity(written: KubernetesObject, read: KubernetesObject): KubernetesObject {
  if (written.apiVersion && written.kind) return written;
  return { ...written, apiVersion: written.apiVersion || read.apiVersion, kind: written.kind || read.kind };
}

function conditionsOf(resource: KubernetesObject): readonly StatusCondition[] | undefined {
  const status: unknown = (resource as { status?: unknown }).status;
  if (typeof status !== 'object' || status === null) return undefined;
  const conditions: unknown = (status as { conditions?: unknown }).conditions;
  return Array.isArray(conditions) ? (conditions as StatusCondition[]) : undefined;
}
