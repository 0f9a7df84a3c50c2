/**
 * A fake API server in a process of its own, so that a benchmark measuring
 * its own CPU does not count the server's. Started with `fork`: it sends
 * `{ url }` once listening, then answers each {@link ServerQuestion} with a
 * {@link ServerAnswer} of the same `id`.
 */
import { FakeApiServer } from '../test/support/fake-api-server/index.js';

/** What the benchmark asks: to forget every Event, or what the Events of one namespace add up to. */
export interface ServerQuestion {
  readonly id: number;
  readonly ask: 'reset' | 'tally';
  readonly namespace?: string;
}

/** The Events of the namespace asked about: how many, and their series counts summed (1 for an Event without a series). */
export interface ServerAnswer {
  readonly id: number;
  readonly events: number;
  readonly occurrences: number;
}

const server = await FakeApiServer.start();
process.on('message', (question: ServerQuestion) => {
  if (question.ask === 'reset') server.reset();
  // Only the Events are kept: the requests recorded so far are not needed, and would pile up.
  else {
    server.requests.splice(0);
    server.requestHeaders.splice(0);
  }
  const events = question.ask === 'reset' ? [] : server.events(question.namespace);
  const occurrences = events.reduce((sum, event) => sum + (event.series?.count ?? 1), 0);
  if (process.connected) process.send!({ id: question.id, events: events.length, occurrences } satisfies ServerAnswer);
});
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
process.send!({ url: server.url });
