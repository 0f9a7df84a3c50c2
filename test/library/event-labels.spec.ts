// Labels on Events, against the fake API server: written to metadata.labels
// as given, checked before any request, and part of what makes a repeat as
// annotations are: the same labels raise the series' count, different ones
// make another Event.
import { EventRecorder, InvalidEventError, type KubeEvent } from 'nestjs-kube-events';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';

const labelled: KubeEvent = { ...syncFailed, labels: { 'app.kubernetes.io/part-of': 'shop', tier: 'backend' } };

describe('labels on Events', () => {
  let server: FakeApiServer;
  const recorders: EventRecorder[] = [];
  const recorder = (resumeSeries = false) => {
    const made = new EventRecorder({
      reporter: { controller: 'widgets' },
      kubeConfig: server.kubeConfig(),
      resumeSeries,
    });
    recorders.push(made);
    return made;
  };

  beforeEach(async () => {
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    await Promise.all(recorders.splice(0).map((made) => made.onApplicationShutdown()));
    await server.close();
  });

  it('writes them to metadata.labels, beside the annotations', async () => {
    await recorder().publish(configMap(), { ...labelled, annotations: { 'example.com/run': '7' } });

    const [event] = server.events('default');
    expect(event.metadata.labels).toEqual(labelled.labels);
    expect(event.metadata.annotations).toEqual({ 'example.com/run': '7' });
  });

  it('writes no labels when none are given', async () => {
    await recorder().publish(configMap(), syncFailed);

    expect(server.events('default')[0].metadata.labels).toBeUndefined();
  });

  it('counts a repeat with the same labels, in any key order, on the same Event', async () => {
    const publisher = recorder();
    await publisher.publish(configMap(), labelled);
    await publisher.publish(configMap(), {
      ...syncFailed,
      labels: { tier: 'backend', 'app.kubernetes.io/part-of': 'shop' },
    });

    const events = server.events('default');
    expect(events).toHaveLength(1);
    expect(events[0].series?.count).toBe(2);
    expect(server.writes()[1].body).not.toHaveProperty('metadata.labels');
  });

  it('creates another Event for different labels, as for different annotations', async () => {
    const publisher = recorder();
    await publisher.publish(configMap(), labelled);
    await publisher.publish(configMap(), { ...syncFailed, labels: { 'app.kubernetes.io/part-of': 'billing' } });
    await publisher.publish(configMap(), syncFailed);

    expect(server.events('default').map((event) => event.metadata.labels)).toEqual([
      labelled.labels,
      { 'app.kubernetes.io/part-of': 'billing' },
      undefined,
    ]);
  });

  it('continues, with resumeSeries, the series another process left with the same labels, and not one with others', async () => {
    await recorder(true).publish(configMap(), labelled);
    await recorder(true).publish(configMap(), labelled);
    await recorder(true).publish(configMap(), { ...syncFailed, labels: { tier: 'frontend' } });

    const events = server.events('default');
    expect(events.map((event) => [event.metadata.labels, event.series?.count ?? 1])).toEqual([
      [labelled.labels, 2],
      [{ tier: 'frontend' }, 1],
    ]);
  });

  it('refuses an invalid key or value before any request, naming the field and the key', async () => {
    const publisher = recorder();
    const refused = await publisher
      .publish(configMap(), { ...syncFailed, labels: { 'example.com/app': 'shop/web' } })
      .catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(InvalidEventError);
    expect(refused).toMatchObject({ field: 'labels["example.com/app"]' });
    expect((refused as Error).message).toMatch(
      /^labels\["example\.com\/app"\] must be a label value .* got "shop\/web"\.$/,
    );
    expect(server.requests).toHaveLength(0);
  });
});
