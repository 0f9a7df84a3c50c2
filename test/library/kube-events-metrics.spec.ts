import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import { register, type MetricValue } from 'prom-client';
import {
  EventRecorder,
  KUBE_EVENTS_METRICS,
  KubeEventsHealth,
  KubeEventsMetrics,
  KubeEventsModule,
  type KubeEventsMetricUpdate,
  type KubeEventsModuleOptions,
} from 'nestjs-kube-events';
import { loadPrometheusBackend } from '../../libs/kube-events/src/metrics/prometheus-metrics.js';
import { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { muteLogger } from '../support/logged-lines.js';

const failed = syncFailed;

let controllers = 0;
const uniqueController = () => `metrics-test-${++controllers}`;

/** The values of one metric in prom-client's default registry for one controller, as `labels → value`. */
async function promValues(name: string, controller: string): Promise<Record<string, number>> {
  const metric = register.getSingleMetric(name);
  if (!metric) return {};
  const { values } = await metric.get();
  const found: Record<string, number> = {};
  for (const { labels, value, metricName } of values as (MetricValue<string> & { metricName?: string })[]) {
    // Histogram buckets (`le`) are left out: the sum and count say enough here.
    if (labels.controller !== controller || labels.le !== undefined) continue;
    const rest = Object.entries(labels)
      .filter(([key]) => key !== 'controller')
      .map(([key, label]) => `${key}=${label}`);
    found[[metricName ?? name, ...rest].join(' ')] = value;
  }
  return found;
}

describe('KubeEventsMetrics', () => {
  let server: FakeApiServer;
  let kubeConfig: KubeConfig;
  let app: TestingModule | undefined;

  async function start(options: Partial<KubeEventsModuleOptions> = {}) {
    const controller = uniqueController();
    app = await Test.createTestingModule({
      // A 403 scripted here stands for a refusal: with no permission check, no review contradicts it.
      imports: [KubeEventsModule.forRoot({ reporter: { controller }, kubeConfig, permissionCheck: 'off', ...options })],
    }).compile();
    await app.init();
    return { controller, recorder: app.get(EventRecorder), metrics: app.get(KubeEventsMetrics) };
  }

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeConfig = server.kubeConfig();
    muteLogger('warn');
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.close();
    jest.restoreAllMocks();
  });

  it('registers the counts of created, patched, coalesced and failed publishes with prom-client', async () => {
    const { controller, recorder, metrics } = await start({ timeout: 300 });
    expect(metrics.prometheus).toBe(true);

    await recorder.publish(configMap(), failed);
    await recorder.publish(configMap(), failed);
    await Promise.all(Array.from({ length: 4 }, () => recorder.publish(configMap('storm'), failed)));
    server.failNext(422, 'POST', 'Invalid');
    await expect(recorder.publish(configMap('refused'), failed)).rejects.toThrow();
    server.failNext(403, 'POST');
    await expect(recorder.publish(configMap('forbidden'), failed)).rejects.toThrow();
    await expect(recorder.publish(configMap(), { ...failed, reason: '' })).rejects.toThrow();
    server.hangNext('POST');
    await expect(recorder.publish(configMap('hung'), failed)).rejects.toThrow(/did not finish/);
    // The timed-out occurrence stays queued: the retry of its create writes it.
    await recorder.flush();

    expect(await promValues(KUBE_EVENTS_METRICS.created, controller)).toEqual({ kube_events_created_total: 3 });
    expect(await promValues(KUBE_EVENTS_METRICS.patched, controller)).toEqual({ kube_events_patched_total: 2 });
    // Four concurrent publishes: the first is written at once, the second waits for it, the other two join the second.
    expect(await promValues(KUBE_EVENTS_METRICS.coalesced, controller)).toEqual({ kube_events_coalesced_total: 2 });
    expect(await promValues(KUBE_EVENTS_METRICS.failed, controller)).toEqual({
      'kube_events_failed_total cause=422': 1,
      'kube_events_failed_total cause=403': 1,
      'kube_events_failed_total cause=invalid': 1,
      'kube_events_failed_total cause=timeout': 1,
    });
    expect(await promValues(KUBE_EVENTS_METRICS.publishDuration, controller)).toEqual({
      'kube_events_publish_duration_seconds_sum outcome=created': expect.any(Number),
      'kube_events_publish_duration_seconds_count outcome=created': 3,
      'kube_events_publish_duration_seconds_sum outcome=patched': expect.any(Number),
      'kube_events_publish_duration_seconds_count outcome=patched': 2,
      'kube_events_publish_duration_seconds_sum outcome=failed': expect.any(Number),
      'kube_events_publish_duration_seconds_count outcome=failed': 4,
    });
    const timedOut = await promValues(KUBE_EVENTS_METRICS.publishDuration, controller);
    expect(timedOut['kube_events_publish_duration_seconds_sum outcome=failed']).toBeGreaterThanOrEqual(0.29);

    expect(metrics.snapshot()[controller]).toEqual({
      controller,
      created: 3,
      patched: 2,
      coalesced: 2,
      combined: 0,
      dropped: 0,
      failed: { '422': 1, '403': 1, invalid: 1, timeout: 1 },
      publishDuration: { count: 9, sumSeconds: expect.any(Number) },
    });
  });

  it('counts dropped occurrences and an unreachable server', async () => {
    const { controller, recorder, metrics } = await start({ timeout: 500, writeControl: { maxPending: 1 } });
    const settled = await Promise.allSettled([
      recorder.publish(configMap('a'), failed), // written at once
      recorder.publish(configMap('a'), failed), // waits for it: the one waiting write
      recorder.publish(configMap('a'), failed), // joins it
      recorder.publish(configMap('b'), failed), // written at once: a series with nothing queued may start a write
      recorder.publish(configMap('b'), failed), // would wait too: no room
    ]);
    expect(settled.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
    await server.close();
    await expect(recorder.publish(configMap('c'), failed)).rejects.toThrow(
      /unreachable since .*(ECONNREFUSED|closed by the server)/,
    );

    expect(await promValues(KUBE_EVENTS_METRICS.dropped, controller)).toEqual({ kube_events_dropped_total: 1 });
    expect(await promValues(KUBE_EVENTS_METRICS.failed, controller)).toEqual({
      'kube_events_failed_total cause=unreachable': 1,
    });
    expect(metrics.snapshot()[controller]).toMatchObject({ created: 2, patched: 1, coalesced: 1, dropped: 1 });
  });

  it('keeps counting in one set of metrics across applications of one process', async () => {
    const first = await start();
    await first.recorder.publish(configMap(), failed);
    await app!.close();
    const second = await start();
    await second.recorder.publish(configMap(), failed);
    expect(await promValues(KUBE_EVENTS_METRICS.created, second.controller)).toEqual({ kube_events_created_total: 1 });
    expect(await promValues(KUBE_EVENTS_METRICS.created, first.controller)).toEqual({ kube_events_created_total: 1 });
  });

  it("names the flow schema and priority level of the last answered Event request, as health's state does", async () => {
    const { controller, recorder, metrics } = await start();
    const health = app!.get(KubeEventsHealth);
    expect(metrics.snapshot()[controller]?.writesFlow).toBeUndefined();

    server.answerInFlow('5a1c0b9e-0000-4000-8000-000000000001', '5a1c0b9e-0000-4000-8000-000000000002');
    await recorder.publish(configMap('a'), failed);
    const first = {
      flowSchemaUid: '5a1c0b9e-0000-4000-8000-000000000001',
      priorityLevelUid: '5a1c0b9e-0000-4000-8000-000000000002',
    };
    expect(metrics.snapshot()[controller]?.writesFlow).toEqual(first);
    expect(health.state().flow).toEqual(first);
    expect(await promValues(KUBE_EVENTS_METRICS.writesFlow, controller)).toEqual({
      [`kube_events_writes_flow_info flow_schema_uid=${first.flowSchemaUid} priority_level_uid=${first.priorityLevelUid}`]: 1,
    });

    // A schema applied later moves the writes: the metric follows the latest answer, and keeps one series.
    server.answerInFlow('e7', 'f8');
    await recorder.publish(configMap('a'), failed);
    expect(await promValues(KUBE_EVENTS_METRICS.writesFlow, controller)).toEqual({
      'kube_events_writes_flow_info flow_schema_uid=e7 priority_level_uid=f8': 1,
    });

    // Headers that are not uids are not kept, and do not replace the last well-formed flow.
    server.answerInFlow('evil"} 1 kube_events_created_total{controller="x', 'f8');
    await recorder.publish(configMap('b'), failed);
    expect(metrics.snapshot()[controller]?.writesFlow).toEqual({ flowSchemaUid: 'e7', priorityLevelUid: 'f8' });
  });

  it('streams every metric update on metrics$', async () => {
    const { controller, recorder, metrics } = await start();
    const updates: KubeEventsMetricUpdate[] = [];
    metrics.metrics$.subscribe((update) => updates.push(update));
    await recorder.publish(configMap(), failed);
    expect(updates).toEqual([
      { metric: 'kube_events_created_total', labels: { controller }, value: 1 },
      {
        metric: 'kube_events_publish_duration_seconds',
        labels: { controller, outcome: 'created' },
        value: expect.any(Number),
      },
    ]);
  });

  it('is injectable wherever the recorder is, isGlobal included', async () => {
    @Injectable()
    class Dashboard {
      constructor(readonly metrics: KubeEventsMetrics) {}
    }
    @Module({ providers: [Dashboard], exports: [Dashboard] })
    class DashboardModule {}
    app = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({ reporter: { controller: uniqueController() }, kubeConfig, isGlobal: true }),
        DashboardModule,
      ],
    }).compile();
    expect(app.get(Dashboard).metrics).toBe(app.get(KubeEventsMetrics));
  });

  it('leaves out a recorder with metrics: false', async () => {
    const { controller, recorder, metrics } = await start({ metrics: false });
    await recorder.publish(configMap(), failed);
    expect(metrics.snapshot()[controller]).toBeUndefined();
    expect(await promValues(KUBE_EVENTS_METRICS.created, controller)).toEqual({});
  });

  it('falls back silently to in-memory metrics when prom-client cannot be imported', async () => {
    const missing = Object.assign(new Error("Cannot find package 'prom-client'"), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(await loadPrometheusBackend(() => Promise.reject(missing))).toBeUndefined();

    const metrics = new KubeEventsMetrics();
    const recorder = new EventRecorder({ reporter: { controller: 'no-prometheus' }, kubeConfig });
    recorder.outcomes$.subscribe((outcome) => metrics.handle(outcome));
    await recorder.publish(configMap(), failed);
    await recorder.publish(configMap(), failed);
    expect(metrics.prometheus).toBe(false);
    expect(metrics.snapshot()['no-prometheus']).toMatchObject({ created: 1, patched: 1 });
    // Nothing of this recorder reached prom-client's registry.
    expect(await promValues(KUBE_EVENTS_METRICS.created, 'no-prometheus')).toEqual({});
  });
});
