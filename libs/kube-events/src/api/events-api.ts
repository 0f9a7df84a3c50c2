import {
  ApiException,
  EventsV1Api,
  Observable,
  PatchStrategy,
  setHeaderMiddleware,
  type EventsV1Event,
  type KubeConfig,
  type ObservableMiddleware,
} from '@kubernetes/client-node';
import { PublishApiError } from '../errors.js';

/** The fields of `series` that a patch updates. */
export interface SeriesPatch {
  count: number;
  /** A `V1MicroTime`: the server refuses any precision but six fractional digits. */
  lastObservedTime: Date;
}

/** Where a recorder writes Events: the API server, or a stand-in that answers in memory. */
export interface EventsWriter {
  /** Creates the Event and returns its name. */
  create(namespace: string, body: EventsV1Event, signal: AbortSignal): Promise<string>;
  /** Raises the series of an existing Event. */
  patchSeries(namespace: string, name: string, series: SeriesPatch, signal: AbortSignal): Promise<void>;
}

/**
 * The two requests a recorder sends, over client-node's `EventsV1Api` (so
 * every KubeConfig authentication works), each abortable through a signal.
 * Server refusals become {@link PublishApiError}; an abort rethrows as is.
 */
export class EventsApi implements EventsWriter {
  private readonly api: EventsV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.api = kubeConfig.makeApiClient(EventsV1Api);
  }

  /** Creates the Event and returns the name the server generated. */
  async create(namespace: string, body: EventsV1Event, signal: AbortSignal): Promise<string> {
    try {
      const created = await this.api.createNamespacedEvent({ namespace, body }, withSignal(signal));
      return created.metadata!.name!;
    } catch (error) {
      throw toPublishError(error, signal);
    }
  }

  /** Raises the series of an existing Event with a JSON merge patch. */
  async patchSeries(namespace: string, name: string, series: SeriesPatch, signal: AbortSignal): Promise<void> {
    try {
      await this.api.patchNamespacedEvent({ namespace, name, body: { series } }, withSignal(signal, MERGE_PATCH));
    } catch (error) {
      throw toPublishError(error, signal);
    }
  }
}

const MERGE_PATCH = setHeaderMiddleware('Content-Type', PatchStrategy.MergePatch);

/** Per-request options that make the request abortable through `signal`. */
function withSignal(signal: AbortSignal, ...extra: ObservableMiddleware[]) {
  const abortable: ObservableMiddleware = {
    pre: (context) => {
      context.setSignal(signal);
      return new Observable(Promise.resolve(context));
    },
    post: (response) => new Observable(Promise.resolve(response)),
  };
  return { middleware: [abortable, ...extra], middlewareMergeStrategy: 'append' as const };
}

interface StatusBody {
  message?: string;
  reason?: string;
}

function toPublishError(error: unknown, signal: AbortSignal): unknown {
  // Aborted by the recorder's timeout: the reason is its PublishTimeoutError.
  if (signal.aborted) return signal.reason ?? error;
  if (error instanceof ApiException) {
    const status = parseStatus(error.body);
    const message = status.message ?? `HTTP ${error.code}`;
    return new PublishApiError(`The API server refused the Event (${error.code}): ${message}`, error.code, status.reason, {
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new PublishApiError(`The API server could not be reached: ${message}`, undefined, undefined, { cause: error });
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
