// A storm of Events while the operator reads its own objects: what the e2e test of the Event-writes flow asserts and
// the flow-control benchmark prints. Both run it against the real kube-apiserver.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  EventRecorder,
  type EventWritesFlow,
  type KubeEvent,
  KubeEventsHealth,
  KubeEventsModule,
  PublishError,
} from 'nestjs-kube-events';
import { type ControlPlane, serviceAccountKubeConfig } from '../../../tools/control-plane/control-plane.js';
import { type Scratch, retrying } from './library-fixtures.js';
import { publisherRbac } from './publisher-rbac.js';
import { tightPriorityLevel } from './tight-priority-level.js';

const STORM_OBJECTS = 200;
const STORM_PUBLISHES = 25;
const GETS = 300;
// The tight level seats about 3 requests: the operator's own reads alone fit in it.
const GETS_AT_ONCE = 2;

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

const TEMPLATE = readFileSync(
  fileURLToPath(new URL('../../../libs/kube-events/flow-control/event-writes.yaml', import.meta.url)),
  'utf8',
);

/**
 * The package's flow-control template for `serviceAccount` of `namespace`, its objects named `name`. `limitResponse`
 * `Queue` swaps the level's Reject for the API server's default queuing, to measure one against the other.
 */
const eventWritesFlow = (
  subject: { readonly namespace: string; readonly serviceAccount: string },
  name: string,
  limitResponse: 'Reject' | 'Queue' = 'Reject',
): string => {
  const filled = TEMPLATE.replaceAll('CONTROLLER_SERVICE_ACCOUNT', subject.serviceAccount)
    .replaceAll('CONTROLLER_NAMESPACE', subject.namespace)
    .replaceAll('nestjs-kube-events-writes', name);
  if (limitResponse === 'Reject') return filled;
  const queued = filled.replace(
    'type: Reject',
    'type: Queue\n      queuing:\n        queues: 64\n        handSize: 6\n        queueLengthLimit: 50',
  );
  if (queued === filled) throw new Error('event-writes.yaml no longer says `type: Reject`');
  return queued;
};

/** The RBAC for the operator's own reads: `get` on ConfigMaps in its namespace. */
const readsConfigMaps = (namespace: string, serviceAccount: string): string => `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: read-config-maps
rules:
  - apiGroups: ['']
    resources: ['configmaps']
    verbs: ['get']
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: read-config-maps
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: read-config-maps
subjects:
  - kind: ServiceAccount
    name: ${serviceAccount}
    namespace: ${namespace}
`;

/** What the operator's GETs met. */
export interface Gets {
  readonly rejected: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** `GETS` GETs of `objects` as the operator, `GETS_AT_ONCE` at a time; a 429 is counted, any other error thrown. */
async function operatorGets(core: CoreV1Api, objects: readonly KubernetesObject[]): Promise<Gets> {
  const latencies: number[] = [];
  let rejected = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: GETS_AT_ONCE }, async () => {
      while (next < GETS) {
        const { name, namespace } = objects[next++ % objects.length].metadata!;
        const began = performance.now();
        try {
          await core.readNamespacedConfigMap({ namespace: namespace!, name: name! });
          latencies.push(performance.now() - began);
        } catch (error) {
          if ((error as { code?: number }).code !== 429) throw error;
          rejected++;
        }
        await sleep(5);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (quantile: number) => latencies[Math.floor(latencies.length * quantile)] ?? Number.NaN;
  return { rejected, p50Ms: at(0.5), p99Ms: at(0.99) };
}

/** What the storm's publishes came to. */
export interface Storm {
  readonly resolved: number;
  readonly queued: number;
  /** Any rejection other than a `PublishError` that says the occurrence stays queued. */
  readonly unexpected: readonly unknown[];
}

/** `STORM_PUBLISHES` failures of each object, 10 ms apart per object, all objects at once. */
async function eventStorm(recorder: EventRecorder, objects: readonly KubernetesObject[]): Promise<Storm> {
  let resolved = 0;
  let queued = 0;
  const unexpected: unknown[] = [];
  await Promise.all(
    objects.map(async (object) => {
      const settled: Promise<void>[] = [];
      for (let n = 0; n < STORM_PUBLISHES; n++) {
        settled.push(
          recorder.publish(object, failed).then(
            () => {
              resolved++;
            },
            (error: unknown) => {
              if (error instanceof PublishError && error.queued) queued++;
              else unexpected.push(error);
            },
          ),
        );
        await sleep(10);
      }
      await Promise.all(settled);
    }),
  );
  return { resolved, queued, unexpected };
}

async function kubectlApply(cp: ControlPlane, namespace: string, manifest: string): Promise<void> {
  const applied = await cp.kubectl(['apply', '-n', namespace, '-f', '-'], { input: manifest });
  if (applied.code !== 0) throw new Error(`kubectl apply failed: ${applied.stderr}`);
}

/** What one round of the storm came to: the operator's GETs beside it, and its publishes. */
export interface StormRound {
  readonly gets: Gets;
  readonly publishes: Storm;
}

/**
 * The operator of one scratch namespace on a tight priority level of its own (as on a busy cluster), its
 * `STORM_OBJECTS` ConfigMaps, and recorders acting as it: the scene of the Event-writes flow's test and benchmark.
 */
export class EventWritesStorm {
  private readonly flowObjects: string[] = [];

  private constructor(
    private readonly cp: ControlPlane,
    private readonly scratch: Scratch,
    private readonly operator: KubeConfig,
    private readonly objects: readonly KubernetesObject[],
    readonly tightLevel: string,
  ) {}

  /**
   * Sets the scene up in `scratch`'s namespace: the operator's ServiceAccount with the publisher's RBAC and `get` on
   * ConfigMaps, a tight level at precedence 5000 (after the system schemas, before `service-accounts` at 9000 and
   * after the Event-writes schema's 1000), and the objects, once the operator's GETs get in.
   */
  static async prepare(cp: ControlPlane, scratch: Scratch): Promise<EventWritesStorm> {
    const subject = { namespace: scratch.namespace, serviceAccount: 'operator' };
    const tight = `kube-events-tight-${scratch.namespace}`;
    const sa = await serviceAccountKubeConfig(cp, { namespace: scratch.namespace, name: subject.serviceAccount });
    await kubectlApply(
      cp,
      scratch.namespace,
      [
        publisherRbac(subject.namespace, subject.serviceAccount),
        readsConfigMaps(subject.namespace, subject.serviceAccount),
        tightPriorityLevel(tight, subject, 5000),
      ].join('---\n'),
    );
    const objects: KubernetesObject[] = [];
    for (let i = 0; i < STORM_OBJECTS; i += 20)
      objects.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => scratch.configMap(`flow-${i + j}`)))));
    const storm = new EventWritesStorm(cp, scratch, sa.kubeConfig, objects, tight);
    storm.flowObjects.push(tight);
    // RBAC and the flow controller learn of new objects through informers: wait until a GET gets in.
    await retrying(
      () => storm.core.readNamespacedConfigMap({ namespace: scratch.namespace, name: objects[0].metadata!.name! }),
      (error) => [403, 429].includes((error as { code?: number }).code ?? 0),
    );
    return storm;
  }

  private get core(): CoreV1Api {
    return this.operator.makeApiClient(CoreV1Api);
  }

  /** Applies the package's Event-writes flow for the operator, its objects named `name`. */
  async applyWritesFlow(name: string, limitResponse: 'Reject' | 'Queue' = 'Reject'): Promise<void> {
    this.flowObjects.push(name);
    await kubectlApply(
      this.cp,
      this.scratch.namespace,
      eventWritesFlow({ namespace: this.scratch.namespace, serviceAccount: 'operator' }, name, limitResponse),
    );
  }

  /** Deletes the FlowSchemas and priority levels it applied (they are cluster-scoped). */
  async removeFlows(): Promise<void> {
    for (const name of this.flowObjects.splice(0))
      await this.cp.kubectl(['delete', 'flowschema,prioritylevelconfiguration', name, '--ignore-not-found']);
  }

  /** The uids of the FlowSchema and priority level named `name`. */
  async flowNamed(name: string): Promise<EventWritesFlow> {
    const uidOf = async (kind: string) =>
      (await this.cp.kubectl(['get', kind, name, '-o', 'jsonpath={.metadata.uid}'])).stdout;
    return { flowSchemaUid: await uidOf('flowschema'), priorityLevelUid: await uidOf('prioritylevelconfiguration') };
  }

  /** An application with a recorder of `controller` acting as the operator. */
  async recorderApp(controller: string): Promise<TestingModule> {
    const app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller }, kubeConfig: this.operator })],
    }).compile();
    await app.init();
    return app;
  }

  /** Publishes until the recorder's health names `flow` (the flow controller learns of new schemas by informer). */
  async landIn(app: TestingModule, flow: EventWritesFlow): Promise<void> {
    const recorder = app.get(EventRecorder);
    const health = app.get(KubeEventsHealth);
    const probe = await this.scratch.configMap(`flow-probe-${flow.flowSchemaUid.slice(0, 8)}`);
    for (let tries = 0; health.state().flow?.flowSchemaUid !== flow.flowSchemaUid && tries < 50; tries++) {
      await recorder
        .publish(probe, { type: 'Normal', reason: 'Probed', action: 'Probe', note: `probe ${tries}` })
        .catch(() => undefined);
      await sleep(100);
    }
  }

  /** The operator's GETs alone. */
  quietGets(): Promise<Gets> {
    return operatorGets(this.core, this.objects);
  }

  /** The operator's GETs during a storm of Events from `app`'s recorder. */
  async round(app: TestingModule): Promise<StormRound> {
    const [gets, publishes] = await Promise.all([
      operatorGets(this.core, this.objects),
      eventStorm(app.get(EventRecorder), this.objects),
    ]);
    return { gets, publishes };
  }
}
