// A ServiceAccount's token written to a file the way most people write one (`echo "$TOKEN" > file`, a newline at
// the end), named by a kubeconfig's `token-file`: the library reads it as client-go does, trimmed, and publishes
// to a real kube-apiserver, whether the module loads the kubeconfig or the application loads it and hands it over.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeEvent } from 'nestjs-kube-events';
import {
  type ControlPlane,
  serviceAccountKubeConfig,
  sharedControlPlane,
} from '../../tools/control-plane/control-plane.js';
import { Scratch, forbidden, retrying } from './support/library-fixtures.js';
import { publisherRbac } from './support/publisher-rbac.js';
import { muteLogger } from '../support/logged-lines.js';
import { writeTokenFileKubeconfig } from '../support/token-file-kubeconfig.js';

const failed: KubeEvent = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'source is missing' };

describe('a token file ending in a newline', () => {
  let cp: ControlPlane;
  let scratch: Scratch;
  let dir: string;

  beforeEach(async () => {
    cp = sharedControlPlane();
    scratch = await Scratch.create(cp.kubeConfig(), 'token-file-e2e');
    dir = await mkdtemp(join(tmpdir(), 'kube-events-token-file-'));
    muteLogger('warn');
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await scratch?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it("publishes with a ServiceAccount's token written with a newline, as the kubeconfig's token-file", async () => {
    const namespace = scratch.namespace;
    const object = await scratch.configMap('app-config');
    const sa = await serviceAccountKubeConfig(cp, { namespace, name: 'operator' });
    const applied = await cp.kubectl(['apply', '-n', namespace, '-f', '-'], {
      input: publisherRbac(namespace, 'operator'),
    });
    expect(applied.code).toBe(0);

    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, `${sa.token}\n`);
    const cluster = sa.kubeConfig.getCurrentCluster()!;
    const kubeconfigFile = join(dir, 'kubeconfig');
    await writeTokenFileKubeconfig(kubeconfigFile, {
      cluster: {
        server: cluster.server,
        ...(cluster.caData && { 'certificate-authority-data': cluster.caData }),
        ...(cluster.caFile && { 'certificate-authority': cluster.caFile }),
        ...(cluster.skipTLSVerify && { 'insecure-skip-tls-verify': true }),
      },
      tokenFile,
      namespace,
    });
    // The application loads the kubeconfig itself: client-node reads the token file, newline and all.
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigFile);
    const recorder = scratch.recorder({ kubeConfig });

    // The authorizer learns of a new binding through an informer: allow it a moment.
    await retrying(() => recorder.publish(object, failed), forbidden);
    await recorder.publish(object, failed);

    const [event, ...others] = await scratch.eventsAbout(object);
    expect(others).toHaveLength(0);
    expect(event.series?.count).toBe(2);

    // The same file as a pod's projected token is read (client-node's in-cluster form): read by the library, trimmed.
    const inCluster = new KubeConfig();
    inCluster.loadFromClusterAndUser(
      { ...cluster, name: 'e2e' },
      { name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile } } },
    );
    const other = await scratch.configMap('other-config');
    await scratch.recorder({ kubeConfig: inCluster }).publish(other, failed);
    expect(await scratch.eventsAbout(other)).toHaveLength(1);
  });
});
