import { EventRecorder } from 'nestjs-kube-events';
import { InMemoryWriter } from './in-memory-writer.ts';
const reporter = { controller: 'bench.example.com/widget-controller' };
const writeControl = { objectBurst: 1e9, qps: 1e9, burst: 1e9 };
const failed = { type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note: 'source ConfigMap default/app not found' } as const;
const objects = (count: number, offset = 0) => Array.from({ length: count }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${offset + i}`, namespace: 'default', uid: `uid-${offset + i}`, resourceVersion: '1' } }));
{
  const warm = new EventRecorder({ reporter, maxSeries: 1000, writeControl }, new InMemoryWriter());
  for (const o of objects(30000, 10_000_000)) await warm.publish(o, failed);
}
const tracked = Number(process.env.T);
const recorder = new EventRecorder({ reporter, maxSeries: tracked, writeControl }, new InMemoryWriter());
for (let d = 0; d < tracked; d += 10000) for (const o of objects(Math.min(10000, tracked - d), d)) await recorder.publish(o, failed);
const fresh = objects(50000, tracked);
(globalThis as any).gc?.();
const { performance, PerformanceObserver } = await import('node:perf_hooks');
let gcMs: Record<string, number> = {};
const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) { const k = String((e as any).detail?.kind); gcMs[k] = (gcMs[k] ?? 0) + e.duration; } });
obs.observe({ entryTypes: ['gc'] });
const c0 = process.threadCpuUsage();
for (const o of fresh) await recorder.publish(o, failed);
const c = process.threadCpuUsage(c0);
await new Promise((r) => setTimeout(r, 10));
console.log('T', tracked, 'cpu µs/publish', ((c.user + c.system) / 50000).toFixed(2), 'gc µs/publish by kind', Object.fromEntries(Object.entries(gcMs).map(([k, v]) => [k, (v * 1000 / 50000).toFixed(2)])));
console.log('heap before gc MB', (process.memoryUsage().heapUsed / 1e6).toFixed(0));
(globalThis as any).gc(); (globalThis as any).gc();
console.log('heap after gc MB', (process.memoryUsage().heapUsed / 1e6).toFixed(0), 'tracked', recorder.trackedSeries);
