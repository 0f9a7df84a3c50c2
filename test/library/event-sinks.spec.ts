import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, type Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  EventRecorder,
  getEventRecorderToken,
  InvalidEventError,
  KubeEventsModule,
  KubeEventsSink,
  type EventSink,
  type KubeEvent,
  type KubeEventsModuleOptions,
  type PublishOutcome,
} from 'nestjs-kube-events';
import { RecorderSinks } from '../../libs/kube-events/src/sinks/recorder-sinks.js';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { flush } from '../support/flush.js';
import { unlessTooSlow } from '../support/within.js';
import { captureLogLines, muteLogger } from '../support/logged-lines.js';

const failed = syncFailed;

@KubeEventsSink()
@Injectable()
class CollectingSink implements EventSink {
  readonly outcomes: PublishOutcome[] = [];
  handle(outcome: PublishOutcome): void {
    this.outcomes.push(outcome);
  }
}

@KubeEventsSink()
@Injectable()
class ThrowingSink implements EventSink {
  calls = 0;
  handle(): void {
    this.calls++;
    throw new Error('sink exploded');
  }
}

@KubeEventsSink()
@Injectable()
class RejectingSink implements EventSink {
  calls = 0;
  async handle(): Promise<void> {
    this.calls++;
    throw new Error('webhook answered 500');
  }
}

@KubeEventsSink({ maxInFlight: 10 })
@Injectable()
class HangingSink implements EventSink {
  calls = 0;
  handle(): Promise<void> {
    this.calls++;
    return new Promise(() => undefined);
  }
}

/** A webhook sink whose URL holds its password, as a careless configuration has it, and whose error text holds a terminal command. */
@KubeEventsSink()
@Injectable()
class CredentialedWebhookSink implements EventSink {
  async handle(): Promise<void> {
    try {
      await fetch('https://bot:hunter2-webhook-pw@127.0.0.1:9/notify', { method: 'POST' });
    } catch (error) {
      // fetch's own message names the URL, password and all.
      throw new Error(`\u001b[2J\u001b[31mwebhook failed\u009b0m\nforged line: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

@KubeEventsSink({ recorder: 'billing' })
@Injectable()
class BillingSink extends CollectingSink {}

describe('Event sinks', () => {
  let server: FakeApiServer;
  let kubeConfig: KubeConfig;
  let app: TestingModule | undefined;

  async function start(
    providers: Type[],
    options: Partial<KubeEventsModuleOptions> = {},
    extra: Parameters<typeof KubeEventsModule.forRoot>[0][] = [],
  ) {
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig, metrics: false, ...options }),
        ...extra.map((more) => KubeEventsModule.forRoot(more)),
      ],
      providers: providers as never[],
    }).compile();
    await app.init();
    return app;
  }

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeConfig = server.kubeConfig();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.close();
    jest.restoreAllMocks();
  });

  it('gives a sink every outcome of its recorder', async () => {
    await start([CollectingSink]);
    const recorder = app!.get(EventRecorder);
    await recorder.publish(configMap(), failed);
    await recorder.publish(configMap(), failed);
    await expect(recorder.publish(configMap(), { ...failed, reason: '' })).rejects.toThrow();

    const outcomes = app!.get(CollectingSink).outcomes;
    expect(outcomes.map((outcome) => [outcome.kind, outcome.count])).toEqual([
      ['created', 1],
      ['patched', 2],
      ['failed', 1],
    ]);
    expect(outcomes[1]).toMatchObject({
      reporter: { controller: 'widgets' },
      regarding: { kind: 'ConfigMap', namespace: 'default', name: 'app', uid: 'uid-app' },
      event: failed,
      eventName: server.events()[0].metadata.name,
    });
  });

  it('keeps publishing and the other sinks going when sinks throw, reject or hang', async () => {
    const error = muteLogger('error');
    const warn = muteLogger('warn');
    await start([ThrowingSink, RejectingSink, HangingSink, CollectingSink], { timeout: 500 });
    const recorder = app!.get(EventRecorder);
    const reference: PublishOutcome[] = [];
    recorder.outcomes$.subscribe((outcome) => reference.push(outcome));

    // Within the object's write budget (a burst of 25), so that each publish is written at once.
    for (let i = 0; i < 20; i++) {
      expect(await unlessTooSlow(recorder.publish(configMap(), failed), 1_000)).toBeUndefined();
    }
    const storm = Array.from({ length: 50 }, () => recorder.publish(configMap('storm'), failed));
    expect(await unlessTooSlow(Promise.all(storm), 1_000)).not.toBe('too slow');
    await recorder.flush();

    const collected = app!.get(CollectingSink).outcomes;
    expect(collected).toEqual(reference);
    expect(collected.filter((outcome) => outcome.kind === 'created' || outcome.kind === 'patched')).toHaveLength(
      server.requests.length,
    );
    // The first of the storm is written at once; the second waits for it, and the other 48 join the second.
    expect(collected.filter((outcome) => outcome.kind === 'coalesced').length).toBeGreaterThanOrEqual(48);
    expect(server.events().find((event) => event.regarding.name === 'storm')?.series?.count).toBe(50);
    expect(server.events().find((event) => event.regarding.name === 'app')?.series?.count).toBe(20);

    expect(app!.get(ThrowingSink).calls).toBe(collected.length);
    expect(app!.get(RejectingSink).calls).toBe(collected.length);
    expect(app!.get(HangingSink).calls).toBe(10);
    const hanging = app!.get(RecorderSinks).sinks.find((sink) => sink.label === 'HangingSink')!;
    expect(hanging.pending).toBe(10);
    expect(hanging.missed).toBe(collected.length - 10);

    await flush();
    expect(error).toHaveBeenCalledWith(expect.stringMatching(/Sink ThrowingSink failed.*sink exploded/s));
    expect(error).toHaveBeenCalledWith(expect.stringMatching(/Sink RejectingSink failed.*webhook answered 500/s));
    // Logged once per interval, not once per outcome.
    expect(error).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/Sink HangingSink has 10 handle\(\) calls unsettled/));
  });

  it("logs a failing sink's error redacted and escaped, on one line", async () => {
    const logged = captureLogLines(['error']);
    await start([CredentialedWebhookSink]);
    await app!.get(EventRecorder).publish(configMap(), failed);
    await flush();

    expect(logged).toEqual([expect.stringMatching(/^Sink CredentialedWebhookSink failed/)]);
    const [line] = logged;
    expect(line).not.toContain('hunter2-webhook-pw');
    // eslint-disable-next-line no-control-regex -- control characters are what must not be logged
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(line).toContain('\\u001b[2J');
    expect(line).toContain('webhook failed\\u009b0m\\nforged line: ');
    expect(line).toContain('https://[redacted]@127.0.0.1:9/notify');
  });

  it('does not wait for a hanging sink longer than the recorder timeout when the application closes', async () => {
    await start([HangingSink], { timeout: 200 });
    await app!.get(EventRecorder).publish(configMap(), failed);
    const started = Date.now();
    await app!.close();
    app = undefined;
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('gives the sinks the final writes of folded occurrences, then unsubscribes them on shutdown', async () => {
    await start([CollectingSink]);
    const recorder = app!.get(EventRecorder);
    const sink = app!.get(CollectingSink);
    await Promise.all(Array.from({ length: 5 }, () => recorder.publish(configMap(), failed)));
    await app!.close();
    app = undefined;

    expect(sink.outcomes.at(-1)).toMatchObject({ kind: 'patched', count: 5 });
    const seen = sink.outcomes.length;
    await recorder.publish(configMap('after'), failed).catch(() => undefined);
    expect(sink.outcomes).toHaveLength(seen);
  });

  it('subscribes a sink to the recorder it names', async () => {
    await start([CollectingSink, BillingSink], {}, [
      { name: 'billing', reporter: { controller: 'billing' }, kubeConfig, metrics: false },
    ]);
    await app!.get(EventRecorder).publish(configMap(), failed);
    await app!.get<EventRecorder>(getEventRecorderToken('billing')).publish(configMap(), failed);
    await app!.get<EventRecorder>(getEventRecorderToken('billing')).publish(configMap(), failed);

    expect(app!.get(CollectingSink).outcomes.map((outcome) => outcome.reporter.controller)).toEqual(['widgets']);
    expect(app!.get(BillingSink).outcomes.map((outcome) => outcome.reporter.controller)).toEqual([
      'billing',
      'billing',
    ]);
  });

  it('fails start-up when a sink names a recorder that is not registered', async () => {
    const compiled = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig })],
      providers: [BillingSink],
    }).compile();
    await expect(compiled.init()).rejects.toThrow(/@KubeEventsSink on BillingSink names the recorder "billing"/);
    await compiled.close();
  });

  it('fails start-up when a decorated provider has no handle method', async () => {
    @KubeEventsSink()
    @Injectable()
    class NotASink {}
    const compiled = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig })],
      providers: [NotASink],
    }).compile();
    await expect(compiled.init()).rejects.toThrow(/NotASink: the provider has no handle\(outcome\) method/);
    await compiled.close();
  });

  describe('logEvents', () => {
    it("logs one structured line per outcome through Nest's Logger", async () => {
      const log = muteLogger('log');
      const warn = muteLogger('warn');
      await start([], { logEvents: true });
      const recorder = app!.get(EventRecorder);
      await recorder.publish(configMap(), { ...failed, note: 'source "app" is missing' });
      await recorder.publish(configMap(), { ...failed, note: 'source "app" is missing' });
      server.failNext(422, 'POST', 'Invalid');
      await expect(recorder.publish(configMap('other'), failed)).rejects.toThrow();

      const lines = log.mock.calls.map(([line]) => line as string).filter((line) => line.startsWith('outcome='));
      expect(lines).toEqual([
        expect.stringMatching(
          /^outcome=created controller=widgets object=ConfigMap\/default\/app type=Warning reason=SyncFailed action=Sync count=1 note="source \\"app\\" is missing" event=app\.[0-9a-f]+ durationMs=\d+$/,
        ),
        expect.stringMatching(/^outcome=patched .* count=2 /),
      ]);
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(
          /^outcome=failed controller=widgets object=ConfigMap\/default\/other .* count=1 .*error=".*422/,
        ),
      );
    });

    it('logs a publish refused as invalid, whatever the caller passed', async () => {
      const warn = muteLogger('warn');
      const error = muteLogger('error');
      await start([], { logEvents: true });
      const recorder = app!.get(EventRecorder);
      const { proxy: revoked, revoke } = Proxy.revocable({}, {});
      revoke();
      await expect(recorder.publish(configMap(), null as unknown as KubeEvent)).rejects.toThrow(InvalidEventError);
      await expect(
        recorder.publish(configMap(), { ...failed, reason: Symbol('r') as unknown as string }),
      ).rejects.toThrow(InvalidEventError);
      const publishing = recorder.publish(revoked, failed);
      await expect(publishing).rejects.toThrow(InvalidEventError);

      const lines = warn.mock.calls.map(([line]) => String(line)).filter((line) => line.startsWith('outcome=failed'));
      expect(lines).toEqual([
        expect.stringMatching(
          /^outcome=failed controller=widgets object=ConfigMap\/default\/app reason="" action="" count=1 error="event must be an object/,
        ),
        expect.stringMatching(
          /^outcome=failed controller=widgets object=ConfigMap\/default\/app type=Warning reason="" action=Sync count=1 note="source is missing" error="reason is required/,
        ),
        expect.stringMatching(
          /^outcome=failed controller=widgets object=object type=Warning reason=SyncFailed action=Sync count=1 note="source is missing" error=/,
        ),
      ]);
      expect(error).not.toHaveBeenCalled();
    });

    it('is off by default', async () => {
      const log = muteLogger('log');
      await start([]);
      await app!.get(EventRecorder).publish(configMap(), failed);
      expect(log.mock.calls.filter(([line]) => String(line).startsWith('outcome='))).toHaveLength(0);
    });
  });
});
