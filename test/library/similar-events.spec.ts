// Notes that keep changing, through a real recorder writing to memory:
// how many Events an object gets, what they count, and what outcomes$ and
// the metrics say of the occurrences folded into a combined Event.
import type { KubernetesObject } from '@kubernetes/client-node';
import { KubeEventsMetrics, type PublishOutcome } from 'nestjs-kube-events';
import { FakeEventRecorder } from 'nestjs-kube-events/testing';

const widget: KubernetesObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'ns-a', uid: 'uid-w1' },
};
const failure = (attempt: number) => ({
  type: 'Warning' as const,
  reason: 'ReconcileFailed',
  action: 'Reconcile',
  note: `waiting for pod web-0 (attempt ${attempt}, ${attempt * 37} ms)`,
});

describe('similar events through the recorder', () => {
  const recorders: FakeEventRecorder[] = [];
  const recorder = (options: ConstructorParameters<typeof FakeEventRecorder>[0] = {}) => {
    const made = new FakeEventRecorder(options);
    recorders.push(made);
    return made;
  };
  afterEach(async () => {
    await Promise.all(recorders.splice(0).map((made) => made.onApplicationShutdown()));
  });

  it('gives 40 failures with a new note each at most 10 Events that count all 40, and says so on outcomes$ and in the metrics', async () => {
    const fake = recorder();
    const metrics = new KubeEventsMetrics();
    const outcomes: PublishOutcome[] = [];
    fake.outcomes$.subscribe((outcome) => {
      outcomes.push(outcome);
      metrics.handle(outcome);
    });

    for (let attempt = 1; attempt <= 40; attempt++) await fake.publishFailure(widget, failure(attempt));

    const events = fake.events;
    expect(events.length).toBe(10);
    expect(events.reduce((sum, event) => sum + event.count, 0)).toBe(40);
    const combined = events.filter((event) => event.note?.startsWith('(combined from similar events): '));
    expect(combined).toEqual([
      expect.objectContaining({ note: `(combined from similar events): ${failure(10).note}`, count: 31 }),
    ]);
    const folded = outcomes.filter((outcome) => outcome.kind === 'combined');
    expect(folded.map((outcome) => outcome.event.note)).toEqual(
      Array.from({ length: 31 }, (_, n) => failure(n + 10).note),
    );
    expect(metrics.snapshot()[fake.reporter.controller]).toMatchObject({ combined: 31, created: 10, patched: 30 });
  });

  it('starts a failure of its own once the reconcile succeeded', async () => {
    const fake = recorder({ combineSimilarEvents: 2 });
    await fake.publishFailure(widget, failure(1));
    await fake.publishFailure(widget, failure(2));
    fake.forgetFailures(widget);
    await fake.publishFailure(widget, failure(3));

    expect(fake.events.map((event) => event.note)).toEqual([
      failure(1).note,
      `(combined from similar events): ${failure(2).note}`,
      failure(3).note,
    ]);
  });

  it('creates an Event for every note with combineSimilarEvents: false', async () => {
    const fake = recorder({ combineSimilarEvents: false });

    for (let attempt = 1; attempt <= 12; attempt++) await fake.publishFailure(widget, failure(attempt));

    expect(fake.events.length).toBe(12);
  });
});
