import type { Logger } from '@nestjs/common';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeEvent } from '../kube-events.interfaces.js';
import type { PublishesFailuresOptions } from './publishes-failures.decorator.js';
import type { EventRecorder } from '../recorder/event-recorder.js';
import { RECONCILE_ACTION, RECONCILE_FAILED_REASON, RECOVERED_REASON } from '../kube-events.constants.js';
import {
  FAILURE_NOT_PUBLISHED,
  NO_RESOURCE_ARGUMENT,
  RECONCILED_OBJECT_NOT_FOUND,
  RECOVERED_NOTE,
  RECOVERY_NOT_PUBLISHED,
} from '../kube-events.messages.js';
import { PublishUnreachableError } from '../errors.js';
import { describeError } from '../error-descriptions/describe-error.js';
import { humanDuration } from './human-duration.js';
import type { MethodReporter } from '../decorated-methods/reported-methods.js';
import type { OpenTelemetryApi } from '../tracing/opentelemetry-api.js';
import { inReconcileSpan, TRACEPARENT_ANNOTATION } from '../tracing/reconcile-span.js';
import { isPromiseLike } from '../values/promise-like.js';

type Method = (...args: unknown[]) => unknown;

/** The outage (its start) each recorder last logged as unreachable: the explorer's, shared by the methods it serves. */
export type OutagesLogged = WeakMap<EventRecorder, number>;

/** What a {@link FailureReporter} publishes with, and where it says what it could not publish. */
export interface FailureReporting {
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly outagesLogged: OutagesLogged;
  /** The OpenTelemetry API, when installed: what a `traceLink` reconcile span is made with. */
  readonly openTelemetry?: OpenTelemetryApi;
}

/**
 * Publishes the outcome of the calls of one decorated method in one
 * application: a failure becomes a Warning event and a success resets the
 * object's failure series (and, with `recovery`, publishes a Normal event
 * saying it recovered). Keeps `this`, the arguments, the return value and
 * the original error; a synchronous method stays synchronous.
 *
 * A failed reconcile waits for its Event's write only when that write goes
 * on the wire at once (one round trip, bounded by the recorder's timeout):
 * when it waits for a budget, a connection or a write of its series on its way, the
 * occurrence is counted in its series and the error rethrown at once, and
 * what becomes of that write is still logged.
 */
export class FailureReporter implements MethodReporter {
  private readonly recovery: string | undefined;
  /** The annotation a reconcile span links to, with `traceLink`. */
  private readonly traceAnnotation: string | undefined;

  constructor(
    private readonly label: string,
    private readonly reporting: FailureReporting,
    private readonly options: PublishesFailuresOptions,
  ) {
    this.recovery = recoveryReason(options);
    const { traceLink } = options;
    this.traceAnnotation = !traceLink
      ? undefined
      : ((traceLink === true ? undefined : traceLink.annotation) ?? TRACEPARENT_ANNOTATION);
  }

  call(method: Method, self: unknown, args: unknown[]): unknown {
    const api = this.reporting.openTelemetry;
    if (!api || this.traceAnnotation === undefined) return this.observed(method, self, args);
    let object: KubernetesObject | undefined;
    try {
      object = reconciledObject(args, this.options);
    } catch {
      // The selector threw: the span goes without the object; the report says why.
    }
    return inReconcileSpan(api, this.label, object, this.traceAnnotation, () => this.observed(method, self, args));
  }

  private observed(method: Method, self: unknown, args: unknown[]): unknown {
    let result: unknown;
    try {
      result = method.apply(self, args);
    } catch (error) {
      void this.report(error, args);
      throw error;
    }
    if (!isPromiseLike(result)) {
      void this.succeeded(args);
      return result;
    }
    return Promise.resolve(result).then(
      async (value) => {
        await this.succeeded(args);
        return value;
      },
      async (error: unknown) => {
        await this.report(error, args);
        throw error;
      },
    );
  }

  // Neither may ever replace the reconcile's own outcome: the user's selector and note formatter may throw.
  private report(error: unknown, args: unknown[]): Promise<void> {
    const { options, label } = this;
    try {
      const resource = reconciledObject(args, options);
      if (!resource) {
        this.reporting.logger.warn(NO_RESOURCE_ARGUMENT(label));
        return Promise.resolve();
      }
      const event = {
        type: 'Warning' as const,
        reason: options.reason ?? RECONCILE_FAILED_REASON,
        action: options.action ?? RECONCILE_ACTION,
        note: noteOf(error, options),
        ...(options.labels && { labels: options.labels }),
      };
      return this.scheduled(resource, event, true);
    } catch (problem) {
      this.notPublished(problem);
      return Promise.resolve();
    }
  }

  private succeeded(args: unknown[]): Promise<void> | undefined {
    const { options, label, recovery } = this;
    const { recorder, logger } = this.reporting;
    let resource: KubernetesObject | undefined;
    try {
      resource = reconciledObject(args, options);
    } catch (problem) {
      logger.warn(RECONCILED_OBJECT_NOT_FOUND(label, describeError(problem)));
    }
    if (!resource) return undefined;
    if (recovery === undefined) {
      recorder.forgetFailures(resource);
      return undefined;
    }
    try {
      const ended = recorder.endFailures(resource);
      if (!ended) return undefined;
      const event: KubeEvent = {
        type: 'Normal',
        reason: recovery,
        action: options.action ?? RECONCILE_ACTION,
        note: RECOVERED_NOTE(ended.failures, humanDuration(ended.durationMs)),
        ...(options.labels && { labels: options.labels }),
      };
      return this.scheduled(resource, event, false, RECOVERY_NOT_PUBLISHED);
    } catch (problem) {
      this.notPublished(problem, RECOVERY_NOT_PUBLISHED);
      return undefined;
    }
  }

  /** Publishes through the recorder; resolves once scheduled, and logs what becomes of the write. */
  private scheduled(resource: KubernetesObject, event: KubeEvent, failure: boolean, what = FAILURE_NOT_PUBLISHED) {
    const publish = this.reporting.recorder.schedulePublish(resource, event, failure);
    publish.written.catch((problem: unknown) => this.notPublished(problem, what));
    return publish.scheduled.catch(() => undefined);
  }

  private notPublished(problem: unknown, what = FAILURE_NOT_PUBLISHED): void {
    const { recorder, logger, outagesLogged } = this.reporting;
    // While the server is down every failure would say so: once per outage and recorder is enough.
    if (problem instanceof PublishUnreachableError) {
      if (outagesLogged.get(recorder) === problem.since.getTime()) return;
      outagesLogged.set(recorder, problem.since.getTime());
    }
    logger.warn(`${what(this.label)}: ${describeError(problem)}`);
  }
}

function reconciledObject(args: unknown[], options: PublishesFailuresOptions): KubernetesObject | undefined {
  const selector = options.resourceArg ?? 0;
  const candidate = typeof selector === 'function' ? selector(...args) : args[selector];
  if (!candidate || typeof candidate !== 'object' || !('metadata' in candidate)) return undefined;
  const resource = candidate as KubernetesObject;
  if ((resource.apiVersion || !options.apiVersion) && (resource.kind || !options.kind)) return resource;
  return { ...resource, apiVersion: resource.apiVersion || options.apiVersion, kind: resource.kind || options.kind };
}

/** The reason of the recovery Event, or `undefined` when none is published. */
function recoveryReason({ recovery }: PublishesFailuresOptions): string | undefined {
  if (!recovery) return undefined;
  return (recovery === true ? undefined : recovery.reason) ?? RECOVERED_REASON;
}

function noteOf(error: unknown, options: PublishesFailuresOptions): string {
  if (options.note) return options.note(error);
  return describeError(error);
}
