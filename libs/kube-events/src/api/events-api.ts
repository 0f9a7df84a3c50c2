import {
  ApiException,
  createConfiguration,
  EventsV1Api,
  Observable,
  PatchStrategy,
  ServerConfiguration,
  setHeaderMiddleware,
  type EventsV1Event,
  type KubeConfig,
  type ObservableMiddleware,
} from '@kubernetes/client-node';
import { PublishApiError } from '../errors.js';
import { PooledAuthentication } from './pooled-authentication.js';
import { describeUnreachable } from './unreachable-cause.js';

/** An Event as the API server holds it, as far as a series needs to know. */
export interface StoredEventState {
  readonly name: string;
  readonly namespace: string;
  /** The precondition of the next patch: a patch with another one is refused (409 Conflict). */
  readonly resourceVersion?: string;
  /** The series count: 1 for an Event without a series. */
  readonly count: number;
}

/** Which Events to list: those about one object, for one reason, from one controller (all field selectors). */
export interface EventQuery {
  readonly uid: string;
  readonly reason: string;
  readonly reportingController: string;
}

/** An Event as listed: its state, and what says whether a series may continue it. */
export interface ListedEvent extends StoredEventState {
  readonly event: EventsV1Event;
  /** When its last occurrence was seen (`series.lastObservedTime`, else `eventTime`), in epoch ms. */
  readonly lastObservedAt: number;
}

/** What a series patch changes: the count, and when the last occurrence was seen. */
export interface SeriesPatch {
  count: number;
  /** A `V1MicroTime`: the server refuses any precision but six fractional digits. */
  lastObservedTime: Date;
  /** Sent as `metadata.resourceVersion`, so that the patch applies only to the Event as last seen. */
  resourceVersion?: string;
}

/**
 * Where a recorder writes Events: the API server, or a stand-in that answers
 * in memory. Refusals reject with {@link PublishApiError} (status code and
 * the server's reason); an aborted request rejects with the signal's reason.
 */
export interface EventsWriter {
  /** Creates the Event (its name chosen by the client) and returns it as stored. */
  create(namespace: string, body: EventsV1Event, signal: AbortSignal): Promise<StoredEventState>;
  /** Reads one Event. */
  read(namespace: string, name: string, signal: AbortSignal): Promise<StoredEventState>;
  /** Raises the series of an existing Event (JSON merge patch), with `resourceVersion` as a precondition when given. */
  patchSeries(namespace: string, name: string, patch: SeriesPatch, signal: AbortSignal): Promise<StoredEventState>;
  /** Lists the Events that match `query`, for `resumeSeries`. */
  list?(namespace: string, query: EventQuery, signal: AbortSignal): Promise<ListedEvent[]>;
  /** Adds annotations to an Event (JSON merge patch). */
  annotate?(namespace: string, name: string, annotations: Record<string, string>, signal: AbortSignal): Promise<void>;
  /** Lets go of what it holds (connections), once the recorder is done. */
  close?(): Promise<void>;
}

/**
 * The requests a recorder sends, over client-node's `EventsV1Api` (so every
 * KubeConfig authentication works) and one pool of keep-alive connections,
 * each abortable through a signal. An answer that cannot be read (a broken
 * connection, a cut body) rejects with a {@link PublishApiError} that says
 * the write may have been applied.
 */
export class EventsApi implements EventsWriter {
  private readonly api: EventsV1Api;
  private readonly authentication: PooledAuthentication;

  constructor(kubeConfig: KubeConfig) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('The KubeConfig has no current cluster: set its current context.');
    this.authentication = new PooledAuthentication(kubeConfig);
    // As KubeConfig.makeApiClient does, with the pooled authentication in place of the KubeConfig itself.
    this.api = new EventsV1Api(
      createConfiguration({
        baseServer: new ServerConfiguration(cluster.server, {}),
        authMethods: { default: this.authentication },
        middleware: [setHeaderMiddleware('User-Agent', USER_AGENT)],
      }),
    );
  }

  close(): Promise<void> {
    return this.authentication.close();
  }

  create(namespace: string, body: EventsV1Event, signal: AbortSignal): Promise<StoredEventState> {
    return this.send(signal, [], (options) => this.api.createNamespacedEvent({ namespace, body }, options));
  }

  read(namespace: string, name: string, signal: AbortSignal): Promise<StoredEventState> {
    return this.send(signal, [], (options) => this.api.readNamespacedEvent({ namespace, name }, options));
  }

  patchSeries(namespace: string, name: string, patch: SeriesPatch, signal: AbortSignal): Promise<StoredEventState> {
    const { resourceVersion, ...series } = patch;
    const body = resourceVersion === undefined ? { series } : { metadata: { resourceVersion }, series };
    return this.send(signal, [MERGE_PATCH], (options) => this.api.patchNamespacedEvent({ namespace, name, body }, options));
  }

  async list(namespace: string, query: EventQuery, signal: AbortSignal): Promise<ListedEvent[]> {
    const fieldSelector = `regarding.uid=${query.uid},reason=${query.reason},reportingController=${query.reportingController}`;
    const answer: { status?: number } = {};
    try {
      const list = await this.api.listNamespacedEvent({ namespace, fieldSelector }, requestOptions(signal, answer, []));
      return list.items.map(listedEvent);
    } catch (error) {
      throw toPublishError(error, signal, answer.status);
    }
  }

  async annotate(namespace: string, name: string, annotations: Record<string, string>, signal: AbortSignal): Promise<void> {
    const body = { metadata: { annotations } };
    await this.send(signal, [MERGE_PATCH], (options) => this.api.patchNamespacedEvent({ namespace, name, body }, options));
  }

  private async send(
    signal: AbortSignal,
    extra: ObservableMiddleware[],
    request: (options: ReturnType<typeof requestOptions>) => Promise<EventsV1Event>,
  ): Promise<StoredEventState> {
    const answer: { status?: number } = {};
    try {
      return storedState(await request(requestOptions(signal, answer, extra)));
    } catch (error) {
      throw toPublishError(error, signal, answer.status);
    }
  }
}

const MERGE_PATCH = setHeaderMiddleware('Content-Type', PatchStrategy.MergePatch);
const USER_AGENT = `nestjs-kube-events (Node.js ${process.version})`;

/** Per-request options: abortable through `signal`, and noting the status of the answer before its body is read. */
function requestOptions(signal: AbortSignal, answer: { status?: number }, extra: ObservableMiddleware[]) {
  const observed: ObservableMiddleware = {
    pre: (context) => {
      context.setSignal(signal);
      return new Observable(Promise.resolve(context));
    },
    post: (response) => {
      answer.status = response.httpStatusCode;
      return new Observable(Promise.resolve(response));
    },
  };
  return { middleware: [observed, ...extra], middlewareMergeStrategy: 'append' as const };
}

export function listedEvent(event: EventsV1Event): ListedEvent {
  const observed = event.series?.lastObservedTime ?? event.eventTime;
  return { ...storedState(event), event, lastObservedAt: observed ? new Date(observed).getTime() : 0 };
}

function storedState(event: EventsV1Event): StoredEventState {
  const metadata = event.metadata ?? {};
  return {
    name: metadata.name ?? '',
    namespace: metadata.namespace ?? '',
    resourceVersion: metadata.resourceVersion,
    count: event.series?.count ?? 1,
  };
}

interface StatusBody {
  message?: string;
  reason?: string;
}

function toPublishError(error: unknown, signal: AbortSignal, answeredStatus: number | undefined): unknown {
  // Aborted by the recorder's timeout: the reason is its PublishTimeoutError.
  if (signal.aborted) return signal.reason ?? error;
  if (error instanceof ApiException) {
    const status = parseStatus(error.body);
    const message = status.message ?? `HTTP ${error.code}`;
    return new PublishApiError(`The API server refused the Event (${error.code}): ${message}`, error.code, status.reason, {
      cause: error,
      retryAfterMs: retryAfterMs(error.headers),
    });
  }
  const detail = error instanceof Error ? error.message : String(error);
  if (answeredStatus !== undefined) {
    return new PublishApiError(
      `The API server answered ${answeredStatus} but its answer could not be read (${detail}); the write may have been applied.`,
      answeredStatus,
      undefined,
      { cause: error, mayHaveApplied: true },
    );
  }
  return new PublishApiError(`The API server could not be reached: ${describeUnreachable(error)}`, undefined, undefined, {
    cause: error,
    mayHaveApplied: true,
  });
}

function parseStatus(body: unknown): StatusBody {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusBody;
    } catch {
      return { message: body || undefined };
    }
  }
  return (body ?? {}) as StatusBody;
}

/** `Retry-After` in seconds (the API server's form) or as an HTTP date, in milliseconds. */
function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  const value = headers?.['retry-after'] ?? headers?.['Retry-After'];
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1_000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
