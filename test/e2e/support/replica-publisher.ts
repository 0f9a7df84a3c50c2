// One replica of a controller in a process of its own, for the e2e tests of replicas that share one Event.
// Reads its part from the environment: the kubeconfig (KUBECONFIG_E2E), the object (REPLICA_OBJECT, JSON), its
// instance (REPLICA_INSTANCE); publishes REPLICA_BEFORE failures, prints `ready`, waits for a line on stdin,
// publishes REPLICA_AFTER more, shuts down, and prints `settled {"resolved":n,"rejected":[…]}`.
import { createInterface } from 'node:readline';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder } from 'nestjs-kube-events';

const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(process.env.KUBECONFIG_E2E!);
const object = JSON.parse(process.env.REPLICA_OBJECT!) as KubernetesObject;
const recorder = new EventRecorder({
  reporter: { controller: 'kube-events.e2e/widget-controller', instance: process.env.REPLICA_INSTANCE! },
  kubeConfig,
  resumeSeries: true,
});
const failure = { type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note: 'source not found' } as const;
let resolved = 0;
const rejected: string[] = [];

async function publish(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await recorder.publishFailure(object, failure).then(
      () => resolved++,
      (error: unknown) => rejected.push(String(error)),
    );
  }
}

await publish(Number(process.env.REPLICA_BEFORE ?? 0));
console.log('ready');
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()));
await publish(Number(process.env.REPLICA_AFTER ?? 0));
await recorder.onApplicationShutdown();
console.log(`settled ${JSON.stringify({ resolved, rejected })}`);
process.exit(0);
