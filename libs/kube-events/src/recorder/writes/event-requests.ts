import { V1MicroTime } from '@kubernetes/client-node';
import { eventBody } from '../../api/event-body.js';
import type { EventsWriter, ListedEvent, TraceHeaders } from '../../api/events-api.js';
import { errorMessage } from '../../text/describe-value.js';
import { PublishApiError, PublishError, PublishTimeoutError } from '../../errors.js';
import { MAX_WRITE_MARKS, WRITES_ANNOTATION } from '../../kube-events.constants.js';
import type { Reporter } from '../../kube-events.interfaces.js';
import type { RecorderTracing, WriteAnswer } from '../../tracing/recorder-tracing.js';
import type { TraceContext } from '../../tracing/trace-context.js';
import type { Occurrence } from '../publish/index.js';
import type { CreatePlan, FindPlan, PatchPlan, WritePlan, WriteResult } from '../series/index.js';
import { whyNotOfSeries } from './series-ownership.js';
import type { KubeEventsClock } from '../../kube-events.interfaces.js';

/**
 * Sends one write of a series and says what the server holds afterwards.
 * Knows HTTP and the Event's shape, nothing of series, budgets or timers.
 * Every request is aborted after the recorder's timeout, and then rejects
 * with `PublishTimeoutError` at once. With OpenTelemetry, each write
 * runs in a span and carries the trace context of its latest occurrence.
 */
export class EventRequests {
  constructor(
    private readonly api: EventsWriter,
    private readonly reporter: Required<Reporter>,
    private readonly timeout: number,
    private readonly clock: KubeEventsClock,
    private readonly tracing?: RecorderTracing,
  ) {}

  /**
   * Sends `plan` for occurrences like `occurrence`, the latest of which was
   * published in `trace`; a create or a patch leaves `mark` on the Event
   * (see `WRITES_ANNOTATION`). Resolves to what the server holds
   * afterwards, or rejects with a `PublishError` only, whatever the writer
   * threw.
   */
  request(
    occurrence: Occurrence,
    plan: WritePlan,
    trace: TraceContext | undefined,
    mark: string | undefined,
  ): Promise<WriteResult> {
    // Each request of the write carries its span's context, which a traced API server's span of it names.
    const write = (headers: TraceHeaders | undefined) =>
      this.bound((signal) => this.send(occurrence, plan, trace, mark, signal, headers)).catch((error: unknown) => {
        throw asPublishError(error);
      });
    if (!this.tracing) return write(undefined);
    const { resource, event } = occurrence;
    const identity = () => ({
      reason: event.reason,
      action: event.action,
      name: plan.kind === 'find' ? undefined : plan.name,
      namespace: plan.namespace,
      count: plan.kind === 'find' ? undefined : plan.count,
      object: { kind: resource.kind, name: resource.metadata?.name, uid: resource.metadata?.uid },
    });
    return this.tracing.traceWrite(plan.kind, identity, trace, write, writeAnswer);
  }

  /** Adds annotations to an Event, bounded like a write. */
  annotate(namespace: string, name: string, annotations: Record<string, string>): Promise<void> {
    return this.bound(async (signal) => this.api.annotate?.(namespace, name, annotations, signal));
  }

  /** The request `plan` calls for. */
  private send(
    occurrence: Occurrence,
    plan: WritePlan,
    trace: TraceContext | undefined,
    mark: string | undefined,
    signal: AbortSignal,
    headers: TraceHeaders | undefined,
  ): Promise<WriteResult> {
    if (plan.kind === 'create') return this.create(occurrence, plan, trace, signal, mark, headers);
    if (plan.kind === 'patch') return this.patch(occurrence, plan, trace, signal, mark, headers);
    return this.find(plan, occurrence, mark !== undefined, signal, headers);
  }

  /**
   * Runs `work` with its own abort signal, aborted once the timeout has
   * passed on the recorder's clock. It settles with what `work` settles
   * with, or at the timeout at the latest: with what the aborted request
   * says it was waiting for (an exec credential plugin, say) when it
   * rejects at once, or else with {@link PublishTimeoutError}.
   */
  private bound<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const deadline = this.clock.now() + this.timeout;
    return new Promise<T>((resolve, reject) => {
      const expire = () => {
        // A timer set beyond what a timer holds fires early: it is set again for the rest.
        const left = deadline - this.clock.now();
        if (left > 0) {
          timer = this.clock.setTimer(left, expire);
          return;
        }
        const error = new PublishTimeoutError(this.timeout);
        controller.abort(error);
        // After the promise callbacks the abort runs: a request that heeds it rejects first, saying more.
        setImmediate(() => reject(error));
      };
      let timer = this.clock.setTimer(this.timeout, expire);
      const settle =
        <V>(then: (value: V) => void) =>
        (value: V) => {
          this.clock.clearTimer(timer);
          then(value);
        };
      // Thrown before any promise, it settles the request as a rejection would.
      new Promise<T>((started) => started(work(controller.signal))).then(settle(resolve), settle(reject));
    });
  }

  /**
   * The latest Event this controller wrote for the series (same object,
   * reason and action) of `occurrence`: of those listed, only the ones
   * provably of the series (see `whyNotOfSeries`; with write marks when the
   * recorder leaves them, `marked`), so that no one else's Event, however
   * recent it says it is, takes the series' place. Without RBAC `list`
   * (the shipped Role grants none), nothing is found and the series starts
   * a new Event, as without `resumeSeries`: the lookup is an optimisation,
   * not worth losing Events.
   */
  private async find(
    plan: FindPlan,
    occurrence: Occurrence,
    marked: boolean,
    signal: AbortSignal,
    headers: TraceHeaders | undefined,
  ): Promise<WriteResult> {
    const query = { uid: plan.uid, reason: plan.reason, reportingController: this.reporter.controller };
    let listed: ListedEvent[];
    try {
      listed = ((await this.api.list?.(plan.namespace, query, signal, headers)) ?? []).map((candidate) =>
        this.comparable(candidate),
      );
    } catch (error) {
      // A 403 the recorder's own review does not confirm (a server still starting) is retried, lookup and all.
      if (hasStatus(error, 403) && (this.api.confirmsForbidden?.(plan.namespace, 'list') ?? true))
        return { kind: 'found', latest: undefined, refused: error as PublishApiError };
      throw error;
    }
    const latest = listed
      .filter(
        (candidate) =>
          candidate.event.action === plan.action &&
          !whyNotOfSeries(candidate, occurrence, this.reporter.controller, marked),
      )
      .reduce<ListedEvent | undefined>(
        (found, candidate) => (found && found.lastObservedAt >= candidate.lastObservedAt ? found : candidate),
        undefined,
      );
    return { kind: 'found', latest };
  }

  /** A listed Event without its trace context and write marks, which are not part of what makes a repeat. */
  private comparable(listed: ListedEvent): ListedEvent {
    const annotations = listed.event.metadata?.annotations;
    const traced = this.tracing?.comparableAnnotations(annotations) ?? annotations;
    const comparable = traced && WRITES_ANNOTATION in traced ? withoutKey(traced, WRITES_ANNOTATION) : traced;
    if (comparable === annotations) return listed;
    return { ...listed, event: { ...listed.event, metadata: { ...listed.event.metadata, annotations: comparable } } };
  }

  private async create(
    occurrence: Occurrence,
    plan: CreatePlan,
    trace: TraceContext | undefined,
    signal: AbortSignal,
    mark: string | undefined,
    headers: TraceHeaders | undefined,
  ): Promise<WriteResult> {
    const { resource, event } = occurrence;
    const traced = this.tracing?.createAnnotations(event.annotations, trace) ?? event.annotations;
    const annotations = mark === undefined ? traced : { ...traced, [WRITES_ANNOTATION]: mark };
    const body = eventBody(
      resource,
      annotations === event.annotations ? event : { ...event, annotations },
      this.reporter,
      plan,
    );
    try {
      return { kind: 'created', state: await this.api.create(plan.namespace, body, signal, headers) };
    } catch (error) {
      if (!hasStatus(error, 409, 'AlreadyExists')) throw error;
      return this.readExisting(plan, signal, headers);
    }
  }

  /** After a create refused as existing: what the Event holds. */
  private async readExisting(
    plan: CreatePlan,
    signal: AbortSignal,
    headers: TraceHeaders | undefined,
  ): Promise<WriteResult> {
    try {
      return { kind: 'exists', state: await this.api.read(plan.namespace, plan.name, signal, headers) };
    } catch (readError) {
      // Refused as existing, yet not there (deleted meanwhile): nothing of it stands, so it is created again.
      if (hasStatus(readError, 404)) return { kind: 'gone' };
      throw readError;
    }
  }

  private async patch(
    occurrence: Occurrence,
    plan: PatchPlan,
    trace: TraceContext | undefined,
    signal: AbortSignal,
    mark: string | undefined,
    headers: TraceHeaders | undefined,
  ): Promise<WriteResult> {
    const traced = this.tracing?.patchAnnotations(occurrence.event.annotations, trace);
    // In front of the marks read at the version patched: the precondition keeps the list exact.
    const writes = mark === undefined ? undefined : [mark, ...(plan.writes ?? [])].slice(0, MAX_WRITE_MARKS).join(',');
    const patch = {
      count: plan.count,
      lastObservedTime: new V1MicroTime(),
      resourceVersion: plan.resourceVersion,
      annotations: writes === undefined ? traced : { ...traced, [WRITES_ANNOTATION]: writes },
    };
    try {
      return { kind: 'patched', state: await this.api.patchSeries(plan.namespace, plan.name, patch, signal, headers) };
    } catch (error) {
      if (hasStatus(error, 404)) return { kind: 'gone' };
      if (!hasStatus(error, 409)) throw error;
      try {
        return { kind: 'conflict', state: await this.api.read(plan.namespace, plan.name, signal, headers) };
      } catch (readError) {
        if (hasStatus(readError, 404)) return { kind: 'gone' };
        throw readError;
      }
    }
  }
}

/**
 * A writer of the caller's may reject with anything: before a span, an
 * outcome or a publish's error carries it, its text is bounded and its
 * credentials redacted, as every error the Events API makes already is.
 */
function asPublishError(error: unknown): PublishError {
  return error instanceof PublishError ? error : new PublishError(errorMessage(error), { cause: error });
}

/** What a write's span says of its answer. */
function writeAnswer(result: WriteResult): WriteAnswer {
  if (!('state' in result)) return { result: result.kind };
  const { name, uid, count } = result.state;
  return { result: result.kind, event: { name, uid, count } };
}

function withoutKey(record: Record<string, string>, key: string): Record<string, string> | undefined {
  const { [key]: _, ...rest } = record;
  return Object.keys(rest).length ? rest : undefined;
}

function hasStatus(error: unknown, status: number, reason?: string): boolean {
  return (
    error instanceof PublishApiError && error.statusCode === status && (reason === undefined || error.reason === reason)
  );
}
