import { jest } from '@jest/globals';
import { ApiException, type CoreV1Api, type CustomObjectsApi, type V1ConfigMap } from '@kubernetes/client-node';
import type { EventRecorder, KubeEvent } from 'nestjs-kube-events';
import { resolveOperatorOptions, type OperatorOptions } from '../operator.options.js';
import { ConfigMirrorReconciler } from './config-mirror.reconciler.js';
import { ConfigMirrorStatusWriter } from './config-mirror.status-writer.js';
import type { ConfigMirror, ConfigMirrorStatus } from './config-mirror.types.js';
import { muteLogger } from '../../../../test/support/logged-lines.js';

function apiError(code: number, message: string): ApiException<string> {
  return new ApiException(code, 'Unknown API Status Code!', JSON.stringify({ kind: 'Status', code, message }), {});
}

/** The part of CoreV1Api the reconciler uses, over an in-memory cluster. */
class FakeCore {
  /** Namespaces and their labels: ns-a and ns-b accept copies from ConfigMirrors of default. */
  readonly namespaces = new Map<string, Record<string, string>>([
    ['default', {}],
    ['ns-a', { 'accept-from.mirror.kube-events.dev/default': 'true' }],
    ['ns-b', { 'accept-from.mirror.kube-events.dev/default': 'true' }],
    ['ns-closed', {}],
  ]);
  /** Every read, as `namespace/name` (`namespace` alone for a Namespace). */
  readonly reads: string[] = [];
  readonly configMaps = new Map<string, V1ConfigMap>();
  readonly writes: string[] = [];
  failCreate?: Error;
  private version = 1;

  put(configMap: V1ConfigMap): void {
    const { namespace, name } = configMap.metadata!;
    this.configMaps.set(`${namespace}/${name}`, {
      ...structuredClone(configMap),
      metadata: { ...structuredClone(configMap.metadata), resourceVersion: String(++this.version) },
    });
  }

  async readNamespacedConfigMap({ namespace, name }: { namespace: string; name: string }): Promise<V1ConfigMap> {
    this.reads.push(`${namespace}/${name}`);
    const found = this.configMaps.get(`${namespace}/${name}`);
    if (!found) throw apiError(404, `configmaps "${name}" not found`);
    return structuredClone(found);
  }

  async readNamespace({ name }: { name: string }) {
    this.reads.push(name);
    const labels = this.namespaces.get(name);
    if (!labels) throw apiError(404, `namespaces "${name}" not found`);
    return { metadata: { name, labels } };
  }

  async createNamespacedConfigMap({ namespace, body }: { namespace: string; body: V1ConfigMap }) {
    if (this.failCreate) throw this.failCreate;
    this.writes.push(`create ${namespace}/${body.metadata!.name}`);
    this.put(body);
    return body;
  }

  async replaceNamespacedConfigMap({ namespace, name, body }: { namespace: string; name: string; body: V1ConfigMap }) {
    const current = this.configMaps.get(`${namespace}/${name}`);
    if (current?.metadata?.resourceVersion !== body.metadata?.resourceVersion) throw apiError(409, 'conflict');
    this.writes.push(`replace ${namespace}/${name}`);
    this.put(body);
    return body;
  }
}

class FakeCustomObjects {
  readonly statusPatches: ConfigMirrorStatus[] = [];
  async patchNamespacedCustomObjectStatus({ body }: { body: { status: ConfigMirrorStatus } }) {
    this.statusPatches.push(body.status);
    return {};
  }
}

class FakeRecorder {
  readonly published: KubeEvent[] = [];
  failWith?: Error;
  async publish(_resource: unknown, event: KubeEvent): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.published.push(event);
  }
  forget(): void {}
}

function mirror(spec: Partial<ConfigMirror['spec']> = {}): ConfigMirror {
  return {
    apiVersion: 'mirror.kube-events.dev/v1alpha1',
    kind: 'ConfigMirror',
    metadata: { name: 'app', namespace: 'default', uid: 'uid-1', generation: 3 },
    spec: { sourceName: 'app-config', targetNamespaces: ['ns-a', 'ns-b'], ...spec },
  };
}

describe('ConfigMirrorReconciler', () => {
  let core: FakeCore;
  let customObjects: FakeCustomObjects;
  let recorder: FakeRecorder;
  let reconciler: ConfigMirrorReconciler;

  const reconcilerWith = (options: OperatorOptions = {}) =>
    new ConfigMirrorReconciler(
      core as unknown as CoreV1Api,
      new ConfigMirrorStatusWriter(customObjects as unknown as CustomObjectsApi),
      recorder as unknown as EventRecorder,
      resolveOperatorOptions({ instance: 'test', ...options }),
    );

  beforeEach(() => {
    muteLogger('warn');
    core = new FakeCore();
    customObjects = new FakeCustomObjects();
    recorder = new FakeRecorder();
    reconciler = reconcilerWith();
  });

  afterEach(() => jest.restoreAllMocks());

  const lastStatus = () => customObjects.statusPatches.at(-1)!;
  const ready = () => lastStatus().conditions!.find((c) => c.type === 'Ready')!;

  it('fails with a message a person understands when the source is missing, and says so in the status', async () => {
    await expect(reconciler.reconcile(mirror())).rejects.toMatchObject({
      name: 'SourceNotFoundError',
      reason: 'SourceNotFound',
      message: 'source ConfigMap default/app-config not found',
    });
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'SourceNotFound',
      message: 'source ConfigMap default/app-config not found',
      observedGeneration: 3,
    });
    expect(lastStatus().observedGeneration).toBe(3);
    expect(recorder.published).toEqual([]);
  });

  it('does not rewrite an unchanged failure status on retry', async () => {
    await expect(reconciler.reconcile(mirror())).rejects.toThrow();
    await expect(reconciler.reconcile(mirror())).rejects.toThrow();
    expect(customObjects.statusPatches).toHaveLength(1);
  });

  it('copies the source into every target, labelled as its own, and publishes one Synced event saying so', async () => {
    core.put({ metadata: { name: 'app-config', namespace: 'default' }, data: { greeting: 'hello' } });
    const result = await reconciler.reconcile(mirror());

    expect(result).toEqual({ source: 'default/app-config', created: ['ns-a', 'ns-b'], updated: [], unchanged: [] });
    const copy = core.configMaps.get('ns-a/app-config')!;
    expect(copy.data).toEqual({ greeting: 'hello' });
    expect(copy.metadata!.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'configmirror-controller',
      'mirror.kube-events.dev/mirror': 'app',
    });
    expect(copy.metadata!.annotations).toMatchObject({
      'mirror.kube-events.dev/owner': 'default/app',
      'mirror.kube-events.dev/source': 'default/app-config',
    });
    expect(recorder.published).toEqual([
      { type: 'Normal', reason: 'Synced', action: 'Sync', note: 'copied ConfigMap default/app-config to ns-a, ns-b' },
    ]);
    expect(ready()).toMatchObject({ status: 'True', reason: 'Synced' });
    expect(lastStatus().syncedNamespaces).toEqual(['ns-a', 'ns-b']);
  });

  it('publishes nothing and writes nothing when everything is already in sync', async () => {
    core.put({ metadata: { name: 'app-config', namespace: 'default' }, data: { a: '1' } });
    await reconciler.reconcile(mirror());
    const writes = core.writes.length;
    const patches = customObjects.statusPatches.length;

    const result = await reconciler.reconcile(mirror());
    expect(result.unchanged).toEqual(['ns-a', 'ns-b']);
    expect(core.writes).toHaveLength(writes);
    expect(customObjects.statusPatches).toHaveLength(patches);
    expect(recorder.published).toHaveLength(1);
  });

  it('updates copies whose content drifted from the source', async () => {
    core.put({ metadata: { name: 'app-config', namespace: 'default' }, data: { a: '1' } });
    await reconciler.reconcile(mirror());
    core.put({ metadata: { name: 'app-config', namespace: 'default' }, data: { a: '2' } });

    const result = await reconciler.reconcile(mirror());
    expect(result.updated).toEqual(['ns-a', 'ns-b']);
    expect(core.configMaps.get('ns-b/app-config')!.data).toEqual({ a: '2' });
    expect(recorder.published.at(-1)!.note).toBe('copied ConfigMap default/app-config to ns-a, ns-b');
  });

  it('refuses a source in another namespace without reading anything there', async () => {
    core.put({ metadata: { name: 'secret-config', namespace: 'kube-system' }, data: { a: '1' } });
    await expect(
      reconciler.reconcile(mirror({ sourceName: 'secret-config', sourceNamespace: 'kube-system' })),
    ).rejects.toMatchObject({
      reason: 'SourceNotAllowed',
      message:
        'spec.sourceNamespace kube-system is refused: a ConfigMirror copies only from its own namespace (default); nothing was read from kube-system',
    });
    expect(core.reads).toEqual([]);
    expect(core.writes).toEqual([]);
    expect(ready()).toMatchObject({ status: 'False', reason: 'SourceNotAllowed' });
  });

  it('copies into namespaces that opted in, and refuses the others alike whether they exist or not', async () => {
    core.put({ metadata: { name: 'app-config', namespace: 'default' }, data: { a: '1' } });
    core.put({ metadata: { name: 'app-config', namespace: 'ns-closed' }, data: { theirs: 'yes' } });
    await expect(
      reconciler.reconcile(mirror({ targetNamespaces: ['ns-a', 'ns-closed', 'ns-missing'] })),
    ).rejects.toMatchObject({
      reason: 'TargetNotAllowed',
      message:
        'target namespaces ns-closed, ns-missing do not accept mirrors from default: each needs the label accept-from.mirror.kube-events.dev/default=true',
    });
    expect(core.writes).toEqual(['create ns-a/app-config']);
    // Nothing of a namespace that did not opt in is read: not even whether the copy's name is taken.
    expect(core.reads.filter((read) => read.startsWith('ns-closed/') || read.startsWith('ns-missing/'))).toEqual([]);
    expect(lastStatus().syncedNamespaces).toEqual(['ns-a']);
  });

  it('copies where it can and fails naming the target namespaces that do not exist (any-namespace targets)', async () => {
    reconciler = reconcilerWith({ mirrorTargets: 'any-namespace' });
    core.put({ metadata: { name: 'app-config', namespace: 'default' }, data: { a: '1' } });
    await expect(reconciler.reconcile(mirror({ targetNamespaces: ['ns-a', 'ns-c', 'ns-d'] }))).rejects.toMatchObject({
      reason: 'TargetNamespaceNotFound',
      message: 'target namespaces ns-c, ns-d not found',
    });
    expect(core.configMaps.has('ns-a/app-config')).toBe(true);
    expect(recorder.published.map((e) => e.note)).toEqual(['copied ConfigMap default/app-config to ns-a']);
    expect(ready()).toMatchObject({ status: 'False', reason: 'TargetNamespaceNotFound' });
    expect(lastStatus().syncedNamespaces).toEqual(['ns-a']);
  });

  it('refuses to overwrite a ConfigMap it does not manage', async () => {
    core.put({ metadata: { name: 'app-config', namespace: 'default' }, data: { a: '1' } });
    core.put({ metadata: { name: 'app-config', namespace: 'ns-a' }, data: { mine: 'yes' } });
    await expect(reconciler.reconcile(mirror())).rejects.toMatchObject({
      reason: 'TargetConflict',
      message: expect.stringContaining(
        'ConfigMap ns-a/app-config already exists and is not managed by ConfigMirror default/app',
      ),
    });
    expect(core.configMaps.get('ns-a/app-config')!.data).toEqual({ mine: 'yes' });
  });

  it("rejects a target that is the source's own namespace (any-namespace sources)", async () => {
    reconciler = reconcilerWith({ mirrorSources: 'any-namespace' });
    core.put({ metadata: { name: 'app-config', namespace: 'ns-a' }, data: { a: '1' } });
    await expect(
      reconciler.reconcile(mirror({ sourceNamespace: 'ns-a', targetNamespaces: ['ns-a'] })),
    ).rejects.toMatchObject({ reason: 'InvalidSpec', message: expect.stringContaining("source's own namespace") });
  });

  it("reports an API refusal with the server's own words", async () => {
    core.put({ metadata: { name: 'app-config', namespace: 'default' }, data: { a: '1' } });
    core.failCreate = apiError(403, 'configmaps is forbidden: User "system:serviceaccount:x:y" cannot create resource');
    await expect(reconciler.reconcile(mirror({ targetNamespaces: ['ns-a'] }))).rejects.toMatchObject({
      reason: 'Forbidden',
      message:
        'could not create ConfigMap ns-a/app-config: configmaps is forbidden: User "system:serviceaccount:x:y" cannot create resource ' +
        '(the API server lets the operator into namespace ns-a only once it opts in: ' +
        "a RoleBinding there of the ClusterRole configmirror-controller-copies to the operator's service account)",
    });
  });

  it('keeps credentials out of the condition message that tenants read', async () => {
    core.put({ metadata: { name: 'app-config', namespace: 'default' }, data: { a: '1' } });
    // What undici says of a kubeconfig whose server URL carries userinfo.
    core.failCreate = new TypeError(
      'Request cannot be constructed from a URL that includes credentials: ' +
        'https://admin:Sup3rSecretPw@127.0.0.1:6443/api/v1/namespaces/ns-a/configmaps',
    );
    await expect(reconciler.reconcile(mirror({ targetNamespaces: ['ns-a'] }))).rejects.toMatchObject({
      reason: 'ApiError',
    });
    expect(ready().message).toBe(
      'could not create ConfigMap ns-a/app-config: Request cannot be constructed from a URL that includes credentials: ' +
        'https://[redacted]@127.0.0.1:6443/api/v1/namespaces/ns-a/configmaps',
    );
  });

  it('still succeeds when the Synced event cannot be published', async () => {
    core.put({ metadata: { name: 'app-config', namespace: 'default' }, data: { a: '1' } });
    recorder.failWith = new Error('publish timed out');
    await expect(reconciler.reconcile(mirror())).resolves.toMatchObject({ created: ['ns-a', 'ns-b'] });
    expect(ready()).toMatchObject({ status: 'True' });
  });
});
