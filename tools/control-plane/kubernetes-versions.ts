// Which Kubernetes the local control plane is built from. Each supported
// minor has its Go module in tools/control-plane/kubernetes/v1.<minor> (written
// by `npm run control-plane:bump`); its binaries go to
// .cache/control-plane/v1.<minor>/bin, so that several coexist.
//
// The newest is the default. KUBE_EVENTS_KUBERNETES (or --kubernetes= on the
// scripts that start one) picks another: a minor (`1.35`), `oldest` or `newest`.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Where the Go modules of the supported minors are, one directory each (`v1.37`). */
export const KUBERNETES_MODULES_DIR = join(REPO_ROOT, 'tools/control-plane/kubernetes');
/** Where the control planes are built to, one directory per minor. */
export const CONTROL_PLANE_CACHE_DIR = join(REPO_ROOT, '.cache/control-plane');
/** The environment variable that picks the Kubernetes minor: `1.35`, `oldest` or `newest` (the default). */
export const KUBERNETES_ENV = 'KUBE_EVENTS_KUBERNETES';

/** One buildable Kubernetes minor. */
export interface KubernetesModule {
  /** `v1.37`. */
  minor: string;
  /** Its Go module directory. */
  moduleDir: string;
  /** Where its binaries are built to. */
  binDir: string;
}

const MODULE_DIR_NAME = /^v1\.(\d+)$/;

function moduleFor(minor: string): KubernetesModule {
  return {
    minor,
    moduleDir: join(KUBERNETES_MODULES_DIR, minor),
    binDir: join(CONTROL_PLANE_CACHE_DIR, minor, 'bin'),
  };
}

/** The minors with a Go module here, oldest first. */
export function kubernetesModules(modulesDir = KUBERNETES_MODULES_DIR): KubernetesModule[] {
  const names = existsSync(modulesDir) ? readdirSync(modulesDir) : [];
  return names
    .filter((name) => MODULE_DIR_NAME.test(name) && existsSync(join(modulesDir, name, 'go.mod')))
    .sort((a, b) => Number(MODULE_DIR_NAME.exec(a)![1]) - Number(MODULE_DIR_NAME.exec(b)![1]))
    .map(moduleFor);
}

/**
 * The minor a selector names: `1.35` or `v1.35`, `oldest`, or `newest`
 * (also when empty). Throws, naming the choices, when there is no such module.
 */
export function selectKubernetes(
  selector: string | undefined = process.env[KUBERNETES_ENV],
  modules: KubernetesModule[] = kubernetesModules(),
): KubernetesModule {
  if (modules.length === 0) throw new Error(`no Kubernetes module in ${KUBERNETES_MODULES_DIR}`);
  const wanted = (selector ?? '').trim();
  if (wanted === '' || wanted === 'newest') return modules[modules.length - 1];
  if (wanted === 'oldest') return modules[0];
  const minor = /^v?(1\.\d+)$/.exec(wanted)?.[1];
  const found = modules.find((module) => module.minor === `v${minor}`);
  if (!found) {
    const choices = modules.map((module) => module.minor.slice(1)).join(', ');
    throw new Error(
      `${KUBERNETES_ENV}="${selector}" names no Kubernetes this repository builds: ` +
        `choose one of ${choices}, oldest or newest (the default)`,
    );
  }
  return found;
}

/**
 * Applies a `--kubernetes=` argument, if there is one, by setting
 * KUBE_EVENTS_KUBERNETES: what this process builds and starts, and the
 * processes it starts, then follow it.
 */
export function applyKubernetesArgument(argv: readonly string[] = process.argv): void {
  const value = argv.find((arg) => arg.startsWith('--kubernetes='))?.slice('--kubernetes='.length);
  if (value !== undefined) process.env[KUBERNETES_ENV] = value;
}
