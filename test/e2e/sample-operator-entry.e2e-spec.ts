// The built operator's entry point (apps/sample-operator/dist/main.js, what
// `npm start` and the image run), as a process:
// 1. Under a Node.js older than it needs, it says which it needs and exits 1,
//    before anything loads client-node (whose undici crashes on Node 20).
// 2. Started with a kubeconfig whose server URL carries a password, not one
//    line it writes (stdout, stderr) carries it, while it logs its failures.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { type ControlPlane, sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { exitOf } from './support/child-process.js';
import { OPERATOR_MAIN, ensureOperatorBuilt, spawnOperator } from './support/operator-fixtures.js';

const run = promisify(execFile);
const PASSWORD = 'Sup3rSecretPw';

/** The Node.js binaries on PATH older than 22.19 (the system's node, on many machines). */
async function oldNodes(): Promise<string[]> {
  const found = await run('which', ['-a', 'node']).then(
    ({ stdout }) => stdout.split('\n').filter(Boolean),
    () => [],
  );
  const old: string[] = [];
  for (const binary of new Set(found)) {
    const version = await run(binary, ['--version']).then(
      ({ stdout }) => stdout.trim(),
      () => '',
    );
    const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 19)) old.push(binary);
  }
  return old;
}

describe('the built entry point of the sample operator', () => {
  beforeAll(async () => {
    await ensureOperatorBuilt();
  }, 180_000);

  test('under an old Node.js it says which Node.js it needs, and exits 1, before loading anything', async () => {
    // Every old node on this machine, and this one made to report 20.20.2 (so that there is always one).
    const runs: { node: string; args: string[]; version: string }[] = [
      {
        node: process.execPath,
        args: ['--import', "data:text/javascript,Object.defineProperty(process.versions,'node',{value:'20.20.2'})"],
        version: '20.20.2',
      },
    ];
    for (const node of await oldNodes()) {
      const { stdout } = await run(node, ['--version']);
      runs.push({ node, args: [], version: stdout.trim().replace(/^v/, '') });
    }
    for (const { node, args, version } of runs) {
      const outcome = await run(node, [...args, OPERATOR_MAIN], {
        env: { ...process.env, KUBECONFIG: '/nonexistent' },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: unknown) => {
          const failed = error as { code?: number; stderr?: string };
          return { code: failed.code, stderr: failed.stderr ?? '' };
        },
      );
      expect({ node, ...outcome }).toEqual({
        node,
        code: 1,
        stderr:
          `sample-operator needs Node.js 22.19 or newer; this is Node.js ${version}. ` +
          'Run it with a newer node (the repository installs one: npm ci, then npm start).\n',
      });
    }
  });

  describe('with a kubeconfig whose server URL carries a password', () => {
    let cp: ControlPlane;
    let dir: string;

    beforeAll(async () => {
      cp = sharedControlPlane();
      dir = await mkdtemp(join(tmpdir(), 'operator-userinfo-'));
    });

    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    test('not one line it writes carries the password, though it logs the failures that quote the URL', async () => {
      const admin = cp.kubeConfig();
      const cluster = admin.getCurrentCluster()!;
      const url = new URL(cluster.server);
      url.username = 'admin';
      url.password = PASSWORD;
      const withUserinfo = new KubeConfig();
      withUserinfo.loadFromOptions({
        clusters: [{ ...cluster, server: url.toString().replace(/\/$/, '') }],
        users: admin.users,
        contexts: [{ name: 'userinfo', cluster: cluster.name, user: admin.getCurrentUser()!.name }],
        currentContext: 'userinfo',
      });
      const kubeconfigPath = join(dir, 'kubeconfig');
      await writeFile(kubeconfigPath, withUserinfo.exportConfig(), { mode: 0o600 });

      // The controller's informers, and (with leader election) the Lease: each logs the failures that quote the URL.
      const runs: { env: Record<string, string>; logged: RegExp }[] = [
        {
          env: {},
          logged: /list\/watch \/apis\/mirror\.kube-events\.dev\/v1alpha1\/configmirrors failed: .*\[redacted\]@/,
        },
        {
          env: { LEADER_ELECT: 'true', POD_NAME: 'userinfo', POD_NAMESPACE: 'default' },
          logged: /could not read lease default\/configmirror-controller: .*\[redacted\]@/,
        },
      ];
      for (const { env, logged } of runs) {
        const child = spawnOperator(cp, { KUBECONFIG: kubeconfigPath, ...env });
        let output = '';
        child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const deadline = Date.now() + 30_000;
        while (!logged.test(output)) {
          if (Date.now() > deadline) throw new Error(`no failure logged within 30 s:\n${output}`);
          await sleep(100);
        }
        child.kill('SIGTERM');
        await exitOf(child, 30_000);

        expect(output).toContain(`https://[redacted]@${url.host}`);
        expect(output).not.toContain(PASSWORD);
      }
    }, 120_000);
  });
});
