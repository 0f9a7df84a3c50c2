import { randomInt, randomUUID } from 'node:crypto';
import type { EventsV1Event } from '@kubernetes/client-node';
import { PublishApiError } from '../errors.js';
import { EVENT_REFUSED } from '../kube-events.messages.js';
import { WRITES_ANNOTATION } from '../kube-events.constants.js';
import type { EventsWriter, SeriesPatch, StoredEventState } from '../api/events-api.js';
import { statementOf } from '../api/event-statement.js';

/** k8s.io/apimachinery's alphabet for generated name suffixes. */
const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * Holds Events in memory as the API server would: a create stores the Event
 * (a `generateName` gets a random suffix) and refuses a name that exists
 * (409), a patch raises its `series` if its `resourceVersion` precondition
 * holds (else 409), a patch of an Event that is gone answers 404 (so the
 * recorder creates a new one, as after the server's event TTL). Unbounded,
 * and never waits.
 */
export class InMemoryEventsWriter implements EventsWriter {
  private readonly stored = new Map<string, EventsV1Event>();
  private resourceVersion = 0;

  /** The stored Events, oldest first. */
  get events(): readonly EventsV1Event[] {
    return [...this.stored.values()];
  }

  async create(namespace: string, body: EventsV1Event, signal: AbortSignal): Promise<StoredEventState> {
    signal.throwIfAborted();
    const name = body.metadata?.name ?? `${body.metadata?.generateName ?? ''}${randomSuffix()}`;
    const key = `${namespace}/${name}`;
    if (this.stored.has(key)) {
      throw new PublishApiError(
        EVENT_REFUSED(409, `events.events.k8s.io "${name}" already exists`),
        409,
        'AlreadyExists',
      );
    }
    const event = {
      ...body,
      metadata: { ...body.metadata, name, namespace, uid: randomUUID(), resourceVersion: this.nextResourceVersion() },
    };
    this.stored.set(key, event);
    return stateOf(event);
  }

  async read(namespace: string, name: string, signal: AbortSignal): Promise<StoredEventState> {
    signal.throwIfAborted();
    return stateOf(this.find(namespace, name));
  }

  async patchSeries(
    namespace: string,
    name: string,
    patch: SeriesPatch,
    signal: AbortSignal,
  ): Promise<StoredEventState> {
    signal.throwIfAborted();
    const event = this.find(namespace, name);
    const { resourceVersion, annotations, ...series } = patch;
    if (resourceVersion !== undefined && resourceVersion !== event.metadata!.resourceVersion) {
      throw new PublishApiError(
        EVENT_REFUSED(
          409,
          `Operation cannot be fulfilled on events.events.k8s.io "${name}": the object has been modified`,
        ),
        409,
        'Conflict',
      );
    }
    event.series = { ...event.series, ...series };
    if (annotations) event.metadata!.annotations = mergeAnnotations(event.metadata!.annotations, annotations);
    event.metadata!.resourceVersion = this.nextResourceVersion();
    return stateOf(event);
  }

  private find(namespace: string, name: string): EventsV1Event {
    const event = this.stored.get(`${namespace}/${name}`);
    if (!event) {
      throw new PublishApiError(EVENT_REFUSED(404, `events.events.k8s.io "${name}" not found`), 404, 'NotFound');
    }
    return event;
  }

  private nextResourceVersion(): string {
    return String(++this.resourceVersion);
  }

  /** Forgets every stored Event. */
  clear(): void {
    this.stored.clear();
  }
}

function stateOf(event: EventsV1Event): StoredEventState {
  const { name, namespace, uid, resourceVersion } = event.metadata!;
  const statement = statementOf(event as unknown as Record<string, unknown>);
  const writes = event.metadata!.annotations?.[WRITES_ANNOTATION]?.split(',');
  return {
    name: name!,
    namespace: namespace!,
    uid,
    resourceVersion,
    count: event.series?.count ?? 1,
    writes,
    statement,
  };
}

function randomSuffix(): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_SUFFIX_ALPHABET[randomInt(NAME_SUFFIX_ALPHABET.length)];
  return suffix;
}

/** A JSON merge patch of annotations: `null` removes a key. */
function mergeAnnotations(
  annotations: Record<string, string> | undefined,
  patch: Record<string, string | null>,
): Record<string, string> | undefined {
  const merged = Object.entries({ ...annotations, ...patch }).filter(
    (entry): entry is [string, string] => entry[1] !== null,
  );
  return merged.length ? Object.fromEntries(merged) : undefined;
}
