import { applyDecorators, SetMetadata } from '@nestjs/common';
import type { KubernetesObject } from '@kubernetes/client-node';
import { PUBLISHES_FAILURES_METADATA } from '../kube-events.constants.js';
import {
  CATALOG_EVENT_AND_FIELDS,
  CATALOG_EVENT_NOT_A_WARNING,
  PUBLISHES_FAILURES_INACTIVE,
} from '../kube-events.messages.js';
import type { CatalogEvent, EventCatalogEntry } from '../catalog/event-catalog.js';
import { ReportedMethods } from '../decorated-methods/reported-methods.js';

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
  /**
   * The Warning of an Event catalog (`defineEventCatalog`) to publish: its
   * reason and action, and its note built from the error. Takes the place
   * of `reason`, `action` and `note`, which cannot be given with it.
   * @example
   * @PublishesFailures({ event: mirrorEvents.reconcileFailed })
   */
  event?: Pick<CatalogEvent<EventCatalogEntry<(error: unknown) => string> | EventCatalogEntry<string>>, 'entry'>;
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
  /**
   * Runs each call in a reconcile span of its own, as KEP-5915's reading
   * side has it (with `@opentelemetry/api` installed): a new root span of
   * kind consumer, linked to the trace context the object's annotation
   * carries (`tracing.k8s.io/traceparent`, and `tracestate` beside it),
   * when valid, with the object's identity as attributes; a failure Event
   * then names that span. `true`, or `{ annotation }` for a project that
   * writes the trace context under another key (Tekton's `traceparent`).
   * @default false
   * @example
   * @PublishesFailures({ traceLink: { annotation: 'traceparent' } })
   */
  traceLink?:
    | boolean
    | {
        /** The annotation that holds the object's `traceparent`. @default 'tracing.k8s.io/traceparent' */
        annotation?: string;
      };
}

/** The methods `@PublishesFailures` replaced, which find their reporter through the instance. */
export const failureReportedMethods = new ReportedMethods({
  id: 'publishes-failures',
  name: 'PublishesFailures',
  inactive: PUBLISHES_FAILURES_INACTIVE,
});

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
 * How: as `nestjs-cls`'s `@UseCls` does, the decorator replaces the method
 * on the prototype, once, and the replacement finds at each call what
 * publishes for it through `this`: the module, when the application
 * initialises, gives every instance of a Nest-managed provider with a
 * decorated method the recorder its options name, taken from dependency
 * injection (so several recorders and several applications coexist). The
 * options are also recorded as metadata, which is how the module finds
 * the methods and checks them at start-up. Why not `@nestjs/schedule`'s
 * way (the module wrapping each instance's method): a controller often
 * hands its reconcile to a queue in its constructor
 * (`this.reconcile.bind(this)`), before the application initialises, and
 * such a reference must publish too. Transient providers are served in
 * every consumer's instance; request-scoped providers are skipped with a
 * warning. On an instance no application serves (`KubeEventsModule` not
 * imported, a test without `app.init()`, an instance made with `new`) the
 * method runs as written and says once that its failures are not
 * published, rather than doing nothing silently. It keeps the method's
 * name, length and metadata.
 *
 * @example
 * @PublishesFailures({ apiVersion: 'example.com/v1', kind: 'Widget' })
 * async reconcile(widget: Widget) { ... }
 */
export const PublishesFailures = (options: PublishesFailuresOptions = {}): MethodDecorator =>
  applyDecorators(
    failureReportedMethods.replaceMethod(),
    SetMetadata(PUBLISHES_FAILURES_METADATA, withCatalogEvent(options)),
  );

/** The options with a catalog's `event` turned into the reason, action and note it gives; checked when decorating. */
function withCatalogEvent(options: PublishesFailuresOptions): PublishesFailuresOptions {
  const { event, ...rest } = options;
  if (event === undefined) return options;
  const { entry } = event;
  if (entry.type !== 'Warning') throw new TypeError(CATALOG_EVENT_NOT_A_WARNING(entry.reason));
  const given = (['reason', 'action', 'note'] as const).filter((field) => rest[field] !== undefined);
  if (given.length > 0) throw new TypeError(CATALOG_EVENT_AND_FIELDS(entry.reason, given));
  const { note } = entry;
  return {
    ...rest,
    reason: entry.reason,
    action: entry.action,
    note: typeof note === 'string' ? () => note : (error) => note(error),
  };
}
