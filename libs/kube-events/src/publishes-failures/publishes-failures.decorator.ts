import { applyDecorators, Logger, SetMetadata } from '@nestjs/common';
import type { KubernetesObject } from '@kubernetes/client-node';
import { PUBLISHES_FAILURES_METADATA } from '../kube-events.constants.js';
import { PUBLISHES_FAILURES_INACTIVE } from '../kube-events.messages.js';

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
  /**
   * Labels on the failure Events (and the recovery Event), so that
   * `kubectl get events -l …` and a collector's label selector find them;
   * checked as the API server checks labels when an Event is published.
   * @example
   * labels: { 'app.kubernetes.io/part-of': 'shop' }
   */
  labels?: Record<string, string>;
  /** Filled in when the object lacks `apiVersion`, as informer and list items do. */
  apiVersion?: string;
  /** Filled in when the object lacks `kind`, as informer and list items do. */
  kind?: string;
  /**
   * Publishes one Normal event when a success ends failures of the object
   * (its failure series counted at least one), saying how many over how
   * long: `Recovered after 3 failures over 2m10s`, so that
   * `kubectl describe` shows the way back as well as the trouble. `true`
   * for reason `Recovered`, or `{ reason }` for another; its action is the
   * failures' (`action`). A success after no failure publishes nothing.
   * Failures older than the series window (`seriesWindow` since their
   * Event's last write) are not counted.
   * @default false
   * @example
   * @PublishesFailures({ recovery: { reason: 'Reconciled' } })
   */
  recovery?:
    | boolean
    | {
        /** The recovery Event's reason. @default 'Recovered' */
        reason?: string;
      };
}

/**
 * Publishes a Warning event when the decorated reconcile method throws or
 * rejects, then rethrows the original error; after a success, forgets the
 * object's failure series so that a failure coming back starts a new Event
 * (and with `recovery`, says so with a Normal event). A failed reconcile
 * waits for its Event's write only when that write goes out at once, and
 * no longer than the recorder's timeout; when the write waits for a budget,
 * a connection or a write of the same series on its way, the occurrence is counted
 * in its series and the error rethrown at once. A failed publish is logged,
 * never thrown. A method that returns synchronously stays synchronous: its
 * failure is published in the background.
 *
 * As `@nestjs/schedule`'s `@Cron` does, the decorator records its options as
 * metadata, and the module's explorer, when the application initialises,
 * wraps the method on each instance of a Nest-managed provider with the
 * recorder it names, taken from dependency injection (so several recorders
 * can coexist). Transient providers are wrapped in every consumer's
 * instance; request-scoped providers are skipped with a warning.
 *
 * Why the method on the prototype is also replaced, by a stand-in: a
 * controller often hands its reconcile to a queue in its constructor
 * (`this.reconcile.bind(this)`), before the explorer runs, and such a
 * reference must publish too. The stand-in forwards a call on an instance
 * the explorer wrapped to that instance's wrapper, and on an instance
 * nothing wrapped (`KubeEventsModule` not imported, a test without
 * `app.init()`, an instance made with `new`) it calls the method and says
 * once that its failures are not published, rather than doing nothing
 * silently. It keeps the method's name, length and metadata.
 *
 * @example
 * @PublishesFailures({ apiVersion: 'example.com/v1', kind: 'Widget' })
 * async reconcile(widget: Widget) { ... }
 */
export const PublishesFailures = (options: PublishesFailuresOptions = {}): MethodDecorator =>
  applyDecorators(StandIn(), SetMetadata(PUBLISHES_FAILURES_METADATA, options));

type Method = (...args: unknown[]) => unknown;

/** What a stand-in knows of the method it stands in for. */
interface StandInRecord {
  /** The decorated method, which the explorer wraps. */
  readonly method: Method;
  /** Said once per method: that it runs unwrapped, or (from the explorer) why it is not wrapped. */
  warned: boolean;
}

const STAND_IN = Symbol('KUBE_EVENTS:publishes-failures:stand-in');

/** The record of a stand-in; `undefined` for any other function (a decorator above this one wrapped it). */
export function standInOf(method: unknown): StandInRecord | undefined {
  return (method as { [STAND_IN]?: StandInRecord } | undefined)?.[STAND_IN];
}

/** Puts the stand-in described above in place of the method. */
function StandIn(): MethodDecorator {
  return (target, key, descriptor) => {
    const method = descriptor.value as unknown as Method;
    const owner = typeof target === 'function' ? target.name : target.constructor.name;
    const record: StandInRecord = { method, warned: false };
    const standIn = function (this: object, ...args: unknown[]): unknown {
      const own = ownMethod(this, key);
      // Reached through a reference taken before the explorer wrapped this instance: go through its wrapper.
      if (own && own !== standIn && inherited(this, key) === standIn) return own.apply(this, args);
      // No own method: nothing wrapped this instance. (With one, a decorator above this one is what was wrapped.)
      if (!own && !record.warned) {
        record.warned = true;
        new Logger('PublishesFailures').warn(PUBLISHES_FAILURES_INACTIVE(`${owner}.${String(key)}`));
      }
      return method.apply(this, args);
    };
    Object.defineProperty(standIn, 'name', { value: method.name });
    Object.defineProperty(standIn, 'length', { value: method.length });
    Object.defineProperty(standIn, STAND_IN, { value: record });
    // Decorators applied before this one recorded their metadata on the method itself.
    for (const metadataKey of Reflect.getOwnMetadataKeys(method)) {
      Reflect.defineMetadata(metadataKey, Reflect.getOwnMetadata(metadataKey, method), standIn);
    }
    descriptor.value = standIn as typeof descriptor.value;
  };
}

/** What `instance` would have under `key` without its own property: its prototype's. */
function inherited(instance: object, key: string | symbol): unknown {
  return (Object.getPrototypeOf(instance) as Record<string | symbol, unknown> | null)?.[key];
}

function ownMethod(instance: unknown, key: string | symbol): Method | undefined {
  if (typeof instance !== 'object' || instance === null || !Object.hasOwn(instance, key)) return undefined;
  const own: unknown = (instance as Record<string | symbol, unknown>)[key];
  return typeof own === 'function' ? (own as Method) : undefined;
}
