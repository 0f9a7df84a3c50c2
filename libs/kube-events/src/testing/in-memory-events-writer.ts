import { randomInt } from 'node:crypto';
import type { EventsV1Event } from '@kubernetes/client-node';
import { PublishApiError } from '../errors.js';
import type { EventsWriter, SeriesPatch } from '../api/events-api.js';

/** k8s.io/apimachinery's alphabet for generated name suffixes. */
const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * Holds Events in memory as the API server would: a create stores the Event
 * (a `generateName` gets a random suffix), a patch raises its `series`, a
 * patch of an Event that is gone answers 404 (so the recorder creates a new
 * one, as after the server's event TTL). Unbounded, and never waits.
 */
export class InMemoryEventsWriter implements EventsWriter {
  private readonly stored = new Map<string, EventsV1Event>();

  /** The stored Events, oldest first. */
  get events(): readonly EventsV1Event[] {
    return [...this.stored.values()];
  }

  async create(namespace: string, body: EventsV1Event, signal: AbortSignal): Promise<string> {
    signal.throwIfAborted();
    const name = body.metadata?.name ?? `${body.metadata?.generateName ?? ''}${randomSuffix()}`;
    const key = `${namespace}/${name}`;
    if (this.stored.has(key)) {
      throw new PublishApiError(`The API server refused the Event (409): events.events.k8s.io "${name}" already exists`, 409, 'AlreadyExists');
    }
    this.stored.set(key, { ...body, metadata: { ...body.metadata, name, namespace } });
    return name;
  }

  async patchSeries(namespace: string, name: string, series: SeriesPatch, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const event = this.stored.get(`${namespace}/${name}`);
    if (!event) {
      throw new PublishApiError(`The API server refused the Event (404): events.events.k8s.io "${name}" not found`, 404, 'NotFound');
    }
    event.series = { ...event.series, ...series };
  }

  /** Forgets every stored Event. */
  clear(): void {
    this.stored.clear();
  }
}

function randomSuffix(): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_SUFFIX_ALPHABET[randomInt(NAME_SUFFIX_ALPHABET.length)];
  return suffix;
}
