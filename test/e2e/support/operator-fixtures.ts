// What the end-to-end tests of the sample operator's process need: the built operator, and its CRD on the cluster.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CONFIG_MIRROR_CRD_NAME } from '../../../apps/sample-operator/src/config-mirror/config-mirror.constants.js';
import type { ControlPlane } from '../../../tools/control-plane/control-plane.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The operator's entry point, as `npm start` runs it. */
export const OPERATOR_MAIN = join(REPO_ROOT, 'apps/sample-operator/dist/main.js');

/** Builds the library and the operator unless both are built. */
export async function ensureOperatorBuilt(): Promise<void> {
  if (existsSync(OPERATOR_MAIN) && existsSync(join(REPO_ROOT, 'libs/kube-events/dist/index.js'))) return;
  await promisify(execFile)('npm', ['run', 'build'], { cwd: REPO_ROOT });
}

/** Applies the ConfigMirror CRD and waits until it is established; resolves whether this call installed it. */
export async function installConfigMirrorCrd(cp: ControlPlane): Promise<boolean> {
  const installed = (await cp.kubectl(['get', 'crd', CONFIG_MIRROR_CRD_NAME])).code !== 0;
  for (const args of [
    ['apply', '-f', join(REPO_ROOT, 'apps/sample-operator/deploy/crd.yaml')],
    ['wait', '--for=condition=Established', `crd/${CONFIG_MIRROR_CRD_NAME}`, '--timeout=30s'],
  ]) {
    const result = await cp.kubectl(args);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited with ${result.code}: ${result.stderr}`);
  }
  return installed;
}

/** Removes the ConfigMirror CRD if {@link installConfigMirrorCrd} installed it. */
export async function removeConfigMirrorCrd(cp: ControlPlane, installed: boolean): Promise<void> {
  if (installed) await cp.kubectl(['delete', 'crd', CONFIG_MIRROR_CRD_NAME, '--ignore-not-found', '--wait=false']);
}
