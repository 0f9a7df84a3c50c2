import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  ApiException,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import {
  defineEventCatalog,
  EventRecorder,
  KubeEventsModule,
  PublishesConditionChanges,
  PublishesFailures,
  SERIES_WINDOW_MS,
  type StatusCondition,
} from 'nestjs-kube-events';
import { FakeClock, FakeEventRecorder, KubeEventsTestingModule } from 'nestjs-kube-events/testing';
import { FakeApiServer, type RecordedRequest } from '../support/fake-api-server/index.js';
import { captureLogLines } from '../support/logged-lines.js';

interface Widget extends KubernetesObject {
  status?: { conditions?: StatusCondition[] };
}

const STATUS_PATH = '/apis/example.com/v1/namespaces/default/widgets/w1/status';
const condition = (type: string, status: string, reason: string, message: string): StatusCondition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
});
const ready = (status: 'True' | 'False' | 'Unknown') =>
  status === 'True'
    ? condition('Ready', 'True', 'Mirrored', 'copied 3 keys')
    : condition('Ready', status, 'SourceMissing', 'source ConfigMap default/app not found');

const widgetEvents = defineEventCatalog({
  ready: { condition: 'Ready', action: 'Mirror', reasons: ['Mirrored', 'SourceMissing'], when: 'copies are current' },
});

/** A Widget as the server holds it: what a status write is based on and what it answers. */
class WidgetStore {
  current: Widget = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w1', namespace: 'default', uid: 'uid-w1', resourceVersion: '1' },
  };
}

/** The fake server's KubeConfig, for the status writes. */
class KubeConfigHolder {
  constructor(readonly value: KubeConfig) {}
}

@Injectable()
class WidgetStatus {
  private readonly api: CustomObjectsApi;
  constructor(kubeConfig: KubeConfigHolder) {
    this.api = kubeConfig.value.makeApiClient(CustomObjectsApi);
  }

  /** Writes the status through the status subresource, and resolves with the Widget as the server wrote it. */
  @PublishesConditionChanges()
  write(widget: Widget, conditions: StatusCondition[]): Promise<Widget> {
    return this.patch(widget, conditions);
  }

  /** The same write, publishing only the conditions the catalog declares, with their action. */
  @PublishesConditionChanges({ events: [widgetEvents.ready] })
  writeDeclared(widget: Widget, conditions: StatusCondition[]): Promise<Widget> {
    return this.patch(widget, conditions);
  }

  private async patch(widget: Widget, conditions: StatusCondition[]): Promise<Widget> {
    return (await this.api.patchNamespacedCustomObjectStatus(
      {
        group: 'example.com',
        version: 'v1',
        plural: 'widgets',
        namespace: 'default',
        name: 'w1',
        body: { metadata: { resourceVersion: widget.metadata?.resourceVersion }, status: { conditions } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Widget;
  }

  /** Writes nothing when nothing changed, as status writers do: resolves with nothing. */
  @PublishesConditionChanges()
  async writeIfChanged(_widget: Widget, _conditions: StatusCondition[]): Promise<Widget | undefined> {
    return undefined;
  }

  /** Both decorators on one method, which resolves with what it wrote inside a result of its own. */
  @PublishesFailures()
  @PublishesConditionChanges({ written: (result: { mirror: Widget }) => result.mirror })
  async writeAndSay(widget: Widget, conditions: StatusCondition[]): Promise<{ mirror: Widget }> {
    return { mirror: await this.patch(widget, conditions) };
  }

  /** A reconcile whose failures `@PublishesFailures` publishes, writing the status as it goes. */
  @PublishesFailures()
  async reconcile(widget: Widget, conditions: StatusCondition[]): Promise<void> {
    await this.write(widget, conditions);
  }
}

describe('condition changes', () => {
  let server: FakeApiServer;
  let app: TestingModule;
  let status: WidgetStatus;
  let store: WidgetStore;

  /** The server's answer to the next status write: the Widget with the status written, at a new resourceVersion. */
  function answerStatusWrite() {
    server.respondNext(
      (request) => request.path === STATUS_PATH,
      (request: RecordedRequest) => {
        const body = request.body as Widget;
        const version = String(Number(store.current.metadata?.resourceVersion) + 1);
        store.current = { ...store.current, metadata: { ...store.current.metadata, resourceVersion: version } };
        store.current = { ...store.current, status: body.status };
        return { status: 200, body: store.current };
      },
    );
  }

  /** One status write through the decorated method, from the Widget as the server holds it. */
  async function writeReady(value: 'True' | 'False' | 'Unknown', others: StatusCondition[] = []) {
    answerStatusWrite();
    return status.write(store.current, [...others, ready(value)]);
  }

  beforeEach(async () => {
    server = await FakeApiServer.start();
    store = new WidgetStore();
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({
          reporter: { controller: 'widgets' },
          kubeConfig: server.kubeConfig(),
          permissionCheck: 'off',
        }),
      ],
      providers: [WidgetStatus, { provide: KubeConfigHolder, useValue: new KubeConfigHolder(server.kubeConfig()) }],
    }).compile();
    await app.init();
    status = app.get(WidgetStatus);
  });
  afterEach(async () => {
    await app?.close();
    await server.close();
    jest.restoreAllMocks();
  });

  it('publishConditionChanges publishes one Event per changed condition, none for a new time alone', async () => {
    const recorder = app.get(EventRecorder);
    const before = [ready('False'), condition('Degraded', 'False', 'AsExpected', 'all copies current')];
    const after = [
      { ...before[1], lastTransitionTime: '2030-01-01T00:00:00Z' },
      ready('True'),
      condition('Available', 'Unknown', 'Starting', 'first reconcile'),
    ];

    await recorder.publishConditionChanges(store.current, before, after);

    expect(server.events().map(({ type, reason, action, note }) => ({ type, reason, action, note }))).toEqual([
      { type: 'Normal', reason: 'Mirrored', action: 'UpdateStatus', note: 'Ready False → True: copied 3 keys' },
      { type: 'Normal', reason: 'Starting', action: 'UpdateStatus', note: 'Available → Unknown: first reconcile' },
    ]);
    expect(server.events()[0].regarding).toMatchObject({ kind: 'Widget', name: 'w1', uid: 'uid-w1' });
  });

  it('publishes the condition’s message redacted, then cut to the note’s limit', async () => {
    const recorder = app.get(EventRecorder);
    const leaky = `could not reach https://registry.example: Authorization: Bearer Hunter2Token99abcdef ${'x'.repeat(3_000)}`;

    await recorder.publishConditionChanges(
      store.current,
      [ready('True')],
      [condition('Ready', 'False', 'Down', leaky)],
    );

    const [{ note }] = server.events();
    expect(note).toMatch(/^Ready True → False: could not reach https:\/\/registry\.example: Authorization: /);
    expect(note).not.toContain('Hunter2Token99abcdef');
    expect(Buffer.byteLength(note!)).toBeLessThanOrEqual(1024);
    expect(note).toMatch(/\.\.\.$/);
  });

  it('the decorator publishes the transition once the status write resolved, about the object as written', async () => {
    await writeReady('False');
    const written = await writeReady('True');

    expect(written.status?.conditions?.[0].status).toBe('True');
    expect(server.events().map(({ type, reason, note }) => ({ type, reason, note }))).toEqual([
      { type: 'Warning', reason: 'SourceMissing', note: 'Ready → False: source ConfigMap default/app not found' },
      { type: 'Normal', reason: 'Mirrored', note: 'Ready False → True: copied 3 keys' },
    ]);
    expect(server.events()[1].regarding.resourceVersion).toBe('3');
  });

  it('folds a condition flapping True and False ten times into two Events, counting 5 and 5', async () => {
    await writeReady('True');
    server.reset();
    for (let flip = 0; flip < 10; flip++) await writeReady(flip % 2 === 0 ? 'False' : 'True');

    expect(server.events().map(({ type, reason, series }) => [type, reason, series?.count ?? 1])).toEqual([
      ['Warning', 'SourceMissing', 5],
      ['Normal', 'Mirrored', 5],
    ]);
  });

  it('publishes nothing when the status write throws, and the error goes on unchanged', async () => {
    await writeReady('True');
    server.reset();
    server.failNext(409, (request) => request.path === STATUS_PATH, 'Conflict', 'the object has been modified');

    const failed = status.write(store.current, [ready('False')]);

    await expect(failed).rejects.toBeInstanceOf(ApiException);
    await expect(failed).rejects.toMatchObject({ code: 409 });
    expect(server.events()).toEqual([]);
  });

  it('publishes nothing when the method wrote nothing', async () => {
    await status.writeIfChanged(store.current, [ready('True')]);

    expect(server.requests).toEqual([]);
  });

  it('works beside @PublishesFailures on the same class: a failed write is a ReconcileFailed, never a transition', async () => {
    server.failNext(409, (request) => request.path === STATUS_PATH, 'Conflict', 'the object has been modified');
    await expect(status.reconcile(store.current, [ready('True')])).rejects.toMatchObject({ code: 409 });
    answerStatusWrite();
    await status.reconcile(store.current, [ready('True')]);

    expect(server.events().map(({ type, reason, action }) => [type, reason, action])).toEqual([
      ['Warning', 'ReconcileFailed', 'Reconcile'],
      ['Normal', 'Mirrored', 'UpdateStatus'],
    ]);
  });

  it('works beside @PublishesFailures on the same method, reading the object as written with `written`', async () => {
    server.failNext(409, (request) => request.path === STATUS_PATH, 'Conflict', 'the object has been modified');
    await expect(status.writeAndSay(store.current, [ready('False')])).rejects.toMatchObject({ code: 409 });
    answerStatusWrite();
    const { mirror } = await status.writeAndSay(store.current, [ready('False')]);

    expect(mirror.metadata?.resourceVersion).toBe('2');
    expect(server.events().map(({ type, reason, action }) => [type, reason, action])).toEqual([
      ['Warning', 'ReconcileFailed', 'Reconcile'],
      ['Warning', 'SourceMissing', 'UpdateStatus'],
    ]);
  });

  it('with catalog entries, publishes the declared conditions alone, with their action', async () => {
    answerStatusWrite();
    await status.writeDeclared(store.current, [condition('Available', 'True', 'Up', 'serving'), ready('False')]);

    expect(server.events().map(({ type, reason, action }) => [type, reason, action])).toEqual([
      ['Warning', 'SourceMissing', 'Mirror'],
    ]);
  });

  it('logs a transition it could not publish, and resolves with the object as written', async () => {
    const lines = captureLogLines(['warn']);
    server.failNext(403, 'POST', 'Forbidden', 'events.events.k8s.io is forbidden');

    const written = await writeReady('True');

    expect(written.status?.conditions).toHaveLength(1);
    expect(server.events()).toEqual([]);
    expect(lines).toEqual([
      expect.stringMatching(
        /^Could not publish the changes of conditions WidgetStatus\.write wrote as Events: The API server refused the Event \(403\)/,
      ),
    ]);
  });
});

@Injectable()
class InMemoryWidgetStatus {
  /** A status write that the server took: resolves with the Widget as written. */
  @PublishesConditionChanges({ apiVersion: 'example.com/v1', kind: 'Widget' })
  async write(widget: Widget, conditions: StatusCondition[]): Promise<Widget> {
    await Promise.resolve();
    return { ...widget, status: { conditions } };
  }
}

describe('condition changes with the fake recorder and the fake clock', () => {
  it('publish to the FakeEventRecorder, fold within the series window, and start a new Event past it', async () => {
    const clock = new FakeClock();
    const app = await Test.createTestingModule({
      imports: [KubeEventsTestingModule.forRoot({ clock })],
      providers: [InMemoryWidgetStatus],
    }).compile();
    await app.init();
    const recorder = app.get(FakeEventRecorder);
    const writer = app.get(InMemoryWidgetStatus);
    const widget: Widget = { metadata: { name: 'w1', namespace: 'default', uid: 'uid-w1' } };
    const flip = async (from: 'True' | 'False', to: 'True' | 'False') =>
      writer.write({ ...widget, status: { conditions: [ready(from)] } }, [ready(to)]);

    await flip('True', 'False');
    await flip('True', 'False');
    recorder.expectEvent({ type: 'Warning', reason: 'SourceMissing', action: 'UpdateStatus', count: 2 });
    await clock.advance(SERIES_WINDOW_MS + 1);
    await flip('True', 'False');

    expect(recorder.events.map(({ reason, count, regarding }) => [reason, count, regarding.kind])).toEqual([
      ['SourceMissing', 2, 'Widget'],
      ['SourceMissing', 1, 'Widget'],
    ]);
    await app.close();
  });
});
