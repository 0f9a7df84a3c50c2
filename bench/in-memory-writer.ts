import type { EventsWriter, SeriesPatch, StoredEventState } from 'nestjs-kube-events';

/** Answers every write at once, so that a benchmark measures the recorder and nothing else. */
export class InMemoryWriter implements EventsWriter {
  created = 0;
  patched = 0;

  async create(namespace: string, body: { metadata?: { name?: string } }): Promise<StoredEventState> {
    this.created++;
    return {
      name: body.metadata?.name ?? `event-${this.created}`,
      namespace,
      resourceVersion: String(this.created + this.patched),
      count: 1,
    };
  }

  async read(namespace: string, name: string): Promise<StoredEventState> {
    return { name, namespace, count: 1 };
  }

  async patchSeries(namespace: string, name: string, patch: SeriesPatch): Promise<StoredEventState> {
    this.patched++;
    return { name, namespace, resourceVersion: String(this.created + this.patched), count: patch.count };
  }
}
