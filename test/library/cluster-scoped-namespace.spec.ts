// Where Events about cluster-scoped objects go (clusterScopedNamespace),
// against the fake API server, which validates as kube-apiserver does: an
// Event whose object has no namespace is taken in default or kube-system only.
import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, KubeEventsModule } from 'nestjs-kube-events';
import type { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { recordersPerTest } from '../support/fake-server-recorders.js';

const node: KubernetesObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-1', uid: 'uid-worker-1' } };

describe('clusterScopedNamespace', () => {
  let server: FakeApiServer;
  const { recorderWith } = recordersPerTest((started) => (server = started));

  it('writes Events about cluster-scoped objects to default by default', async () => {
    await recorderWith().publish(node, syncFailed);

    expect(server.events('default').map((event) => event.regarding.name)).toEqual(['worker-1']);
  });

  it('writes them to kube-system when asked, and counts repeats there', async () => {
    const recorder = recorderWith({ clusterScopedNamespace: 'kube-system' });
    await recorder.publish(node, syncFailed);
    await recorder.publish(node, syncFailed);

    expect(server.events('default')).toEqual([]);
    const [event, ...others] = server.events('kube-system');
    expect(others).toEqual([]);
    expect(event.series?.count).toBe(2);
    expect(server.writes().map((write) => write.path)).toEqual([
      '/apis/events.k8s.io/v1/namespaces/kube-system/events',
      `/apis/events.k8s.io/v1/namespaces/kube-system/events/${event.metadata.name}`,
    ]);
  });

  it('leaves Events about namespaced objects in their own namespace', async () => {
    await recorderWith({ clusterScopedNamespace: 'kube-system' }).publish(configMap(), syncFailed);

    expect(server.events('default')).toHaveLength(1);
    expect(server.events('kube-system')).toEqual([]);
  });

  it('looks for the series to resume in that namespace', async () => {
    await recorderWith({ clusterScopedNamespace: 'kube-system', resumeSeries: true }).publish(node, syncFailed);
    await recorderWith({ clusterScopedNamespace: 'kube-system', resumeSeries: true }).publish(node, syncFailed);

    const [event, ...others] = server.events('kube-system');
    expect(others).toEqual([]);
    expect(event.series?.count).toBe(2);
  });

  it('fails the start-up of KubeEventsModule for another namespace, naming the option and why', async () => {
    const compiling = Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({
          reporter: { controller: 'widgets' },
          kubeConfig: server.kubeConfig(),
          clusterScopedNamespace: 'operators' as 'default',
        }),
      ],
    }).compile();

    await expect(compiling).rejects.toThrow(
      /^KubeEventsModule: invalid option clusterScopedNamespace: clusterScopedNamespace must be 'default' or 'kube-system', got "operators": the API server creates an Event about a cluster-scoped object in no other namespace/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('is taken by KubeEventsModule.forRoot', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        KubeEventsModule.forRoot({
          reporter: { controller: 'widgets' },
          kubeConfig: server.kubeConfig(),
          clusterScopedNamespace: 'kube-system',
        }),
      ],
    }).compile();
    const app = await moduleRef.init();
    try {
      await app.get(EventRecorder).publish(node, syncFailed);
    } finally {
      await app.close();
    }

    expect(server.events('kube-system').map((event) => event.regarding.name)).toEqual(['worker-1']);
  });
});
