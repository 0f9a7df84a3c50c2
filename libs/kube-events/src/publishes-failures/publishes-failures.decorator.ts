import type { KubernetesObject } from '@kubernetes/client-node';
import { PUBLISHES_FAILURES_METADATA } from '../kube-events.constants.js';
import { guardUnwrapped } from './unwrapped-method-guard.js';

/** How `@PublishesFailures` reports a failed reconcile. */
export interface PublishesFailuresOptions {
  /**
   * The recorder to publish with, by the `name` given to `forRoot`.
   * @default the default recorder
   */
  recorder?: string;
  /**
   * Which argument is the reconciled object: its index, or a function of the arguments.
   * @default 0
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a selector types its parameters as the method does
  resourceArg?: number | ((...args: any[]) => KubernetesObject | undefined);
  /** @default 'ReconcileFailed' */
  reason?: string;
  /** @default 'Reconcile' */
  action?: string;
  /**
   * Turns the error into the Event's note. The recorder then removes
   * credentials from it (its `redactNotes` option) and cuts it to
   * {@link MAX_NOTE_BYTES}.
   * @default {@link describeError}: the server's `reason: message` for an API refusal, the causes of a network error, on one line
   * @example
   * note: (error) => `could not mirror the ConfigMap: ${describeError(error)}`
   */
  note?: (error: unknown) => string;
  /** Filled in when the object lacks `apiVersion`, as informer and list items do. */
  apiVersion?: string;
  /** Filled in when the object lacks `kind`, as informer and list items do. */
  kind?: string;
}

/**
 * Publishes a Warning event when the decorated reconcile method throws or
 * rejects, then rethrows the original error; after a success, forgets the
 * object's failure series so that a failure coming back starts a new Event.
 * Waiting for the publish is bounded by the recorder's timeout, and a failed
 * publish is logged, never thrown. A method that returns synchronously stays
 * synchronous: its failure is published in the background.
 *
 * The decorator records metadata; the module wraps the methods of
 * Nest-managed providers when it starts (as `@nestjs/schedule` does), so the
 * recorder comes from dependency injection and several recorders can coexist.
 * Transient providers are wrapped in every consumer's instance;
 * request-scoped providers are skipped with a warning.
 *
 * It also puts a thin guard in place of the method, which the module's
 * wrapper replaces on each instance it wraps: a method that runs unwrapped
 * (`KubeEventsModule` not imported, a test without `app.init()`, an instance
 * made with `new`) logs once that its failures are not published, rather than
 * doing nothing silently.
 *
 * @example
 * @PublishesFailures({ apiVersion: 'example.com/v1', kind: 'Widget' })
 * async reconcile(widget: Widget) { ... }
 */
export const PublishesFailures =
  (options: PublishesFailuresOptions = {}): MethodDecorator =>
  (target, key, descriptor) => {
    const method = descriptor.value as unknown as (...args: unknown[]) => unknown;
    const owner = typeof target === 'function' ? target.name : target.constructor.name;
    const guard = guardUnwrapped(method, `${owner}.${String(key)}`, key);
    Reflect.defineMetadata(PUBLISHES_FAILURES_METADATA, options, guard);
    descriptor.value = guard as typeof descriptor.value;
    return descriptor;
  };
