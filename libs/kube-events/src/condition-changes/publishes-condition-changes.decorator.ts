import { applyDecorators, SetMetadata } from '@nestjs/common';
import type { KubernetesObject } from '@kubernetes/client-node';
import { PUBLISHES_CONDITION_CHANGES_METADATA } from '../kube-events.constants.js';
import { PUBLISHES_CONDITION_CHANGES_INACTIVE } from '../kube-events.messages.js';
import type { ConditionChangeEventsOptions } from '../conditions/condition-change-events.js';
import { ReportedMethods } from '../decorated-methods/reported-methods.js';

/** How `@PublishesConditionChanges` finds the object before and after the write, and publishes its changes. */
export interface PublishesConditionChangesOptions extends ConditionChangeEventsOptions {
  /**
   * The recorder to publish with, by the `name` given to `forRoot`.
   * @default the default recorder
   */
  readonly recorder?: string;
  /**
   * Which argument is the object as read (its `status.conditions` are the
   * conditions before the write): its index, or a function of the arguments.
   * @default 0
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a selector types its parameters as the method does
  readonly resourceArg?: number | ((...args: any[]) => KubernetesObject | undefined);
  /**
   * The object as the server wrote it, from what the method resolved with
   * and its arguments; `undefined` when it wrote nothing.
   * @default what the method resolved with
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a selector types its parameters as the method does
  readonly written?: (result: any, ...args: any[]) => KubernetesObject | null | undefined;
  /** Filled in when the objects lack `apiVersion`. */
  readonly apiVersion?: string;
  /** Filled in when the objects lack `kind`. */
  readonly kind?: string;
}

/** The methods `@PublishesConditionChanges` replaced, which find their reporter through the instance. */
export const conditionReportedMethods = new ReportedMethods({
  id: 'publishes-condition-changes',
  name: 'PublishesConditionChanges',
  inactive: PUBLISHES_CONDITION_CHANGES_INACTIVE,
});

/**
 * Publishes the changes of `status.conditions` that the decorated method
 * wrote, once it resolved: its first argument is the object as read, and
 * it resolves with the object as the server wrote it (the answer of a
 * status update or patch); one Event per condition whose `status` or
 * `reason` changed, as `EventRecorder.publishConditionChanges` publishes
 * them. When the method throws or rejects, nothing is published and the
 * error goes on unchanged, so that no Event claims a state the server did
 * not take; when it resolves with nothing (`undefined`: no write was
 * needed), nothing changed. The method's result waits for the Events' writes
 * only when they go out at once, and no longer than the recorder's
 * timeout; a failed publish is logged, never thrown. It keeps the
 * method's `this`, arguments, result, name, length and metadata, and works
 * beside `@PublishesFailures`, on the same class or the same method.
 *
 * How, and why so: as `@PublishesFailures` does (read its comment), the
 * decorator replaces the method on the prototype, once, and the
 * replacement finds at each call what publishes for it through `this`,
 * given by the module when the application initialises; the options are
 * recorded as metadata, which is how the module finds the methods. On an
 * instance no application serves, the method runs as written and says once
 * that its changes are not published.
 *
 * @example
 * @PublishesConditionChanges({ events: [mirrorEvents.ready] })
 * async writeStatus(mirror: ConfigMirror, status: ConfigMirrorStatus): Promise<ConfigMirror> {
 *   return this.api.replaceNamespacedCustomObjectStatus({ …, body: { ...mirror, status } });
 * }
 */
export const PublishesConditionChanges = (options: PublishesConditionChangesOptions = {}): MethodDecorator =>
  applyDecorators(conditionReportedMethods.replaceMethod(), SetMetadata(PUBLISHES_CONDITION_CHANGES_METADATA, options));
