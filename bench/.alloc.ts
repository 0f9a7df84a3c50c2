import { Session } from 'node:inspector/promises';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { KubeConfig, CoreV1Api } from '@kubernetes/client-node';
import { EventRecorder } from 'nestjs-kube-events';

const kc = new KubeConfig();
kc.loadFromFile(process.env.KCFG!);
const ns = `alloc-${Date.now()}`;
await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
const recorder = new EventRecorder({ reporter: { controller: 'bench.example.com/alloc' }, kubeConfig: kc, writeControl: { qps: 100, burst: 500 } });
const obj = () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${randomUUID().slice(0, 8)}`, namespace: ns, uid: randomUUID(), resourceVersion: '1' } });
const synced = { type: 'Normal', reason: 'Synced', action: 'Reconcile', note: 'configuration synced' } as const;
// warm
await Promise.all(Array.from({ length: 20 }, () => recorder.publish(obj(), synced)));
const N = Number(process.env.N ?? 2000);
const objects = Array.from({ length: N }, obj);
const PROFILE = process.env.PROFILE !== '0';
const session = new Session();
session.connect();
if (PROFILE) await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
const { getHeapStatistics } = await import('node:v8');
const { readFileSync } = await import('node:fs');
const hwm = () => Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
const base = getHeapStatistics().used_heap_size; const hwm0 = hwm();
let peak = 0; const sampler = setInterval(() => { peak = Math.max(peak, getHeapStatistics().used_heap_size - base); }, 5);

const rejected: Record<string, number> = {};
await Promise.all(objects.map((o) => recorder.publish(o, synced).catch((e: Error) => { rejected[e.name] = (rejected[e.name] ?? 0) + 1; })));
await recorder.onApplicationShutdown();
clearInterval(sampler);
console.log('peak used heap above start MB', (peak/1048576).toFixed(1), 'HWM delta MB', ((hwm()-hwm0)/1024).toFixed(1));
if (!PROFILE) process.exit(0);
const { profile } = (await session.post('HeapProfiler.stopSampling')) as any;
const bySelf = new Map<string, number>();
let total = 0;
const walk = (node: any, stack: string[]) => {
  const f = node.callFrame;
  const here = `${f.functionName || '(anon)'} ${f.url.replace(/.*node_modules\//, '').replace(/.*\/libs\//, 'libs/')}:${f.lineNumber + 1}`;
  if (node.selfSize) { bySelf.set(here, (bySelf.get(here) ?? 0) + node.selfSize); total += node.selfSize; }
  for (const c of node.children) walk(c, [...stack, here]);
};
walk(profile.head, []);
writeFileSync('/tmp/alloc/profile.heapprofile', JSON.stringify(profile));
console.log('rejected', rejected, 'total KB', Math.round(total / 1024), 'per publish B', Math.round(total / N));
for (const [k, v] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 45)) console.log(String(Math.round(v / N)).padStart(6), k);
