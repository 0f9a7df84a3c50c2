import type { EventsWriter } from 'nestjs-kube-events';

/** Answers every write at once, so that a benchmark measures the recorder and nothing else. */
export class InMemoryWriter implements EventsWriter {
  created = 0;
  patched = 0;

  async create(): Promise<string> {
    return `event-${this.created++}`;
  }

  async patchSeries(): Promise<void> {
    this.patched++;
  }
}
