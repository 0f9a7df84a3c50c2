// Builds the local control plane (kube-apiserver, etcd, kubectl) of one
// Kubernetes minor from its Go module in tools/control-plane/kubernetes/v1.<minor>
// into .cache/control-plane/v1.<minor>/bin, once: the build is skipped while the
// binaries exist and the stamp file matches a hash of go.mod + go.sum.
//
//   npm run control-plane:build                        # the newest minor
//   npm run control-plane:build -- --kubernetes=1.35   # or KUBE_EVENTS_KUBERNETES=1.35
//   npm run control-plane:build -- --all               # every minor here
//
// Other scripts call ensureControlPlaneBinaries().
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { BuildProgress, type ProgressStream } from './build-progress.js';
import {
  CONTROL_PLANE_CACHE_DIR,
  type KubernetesModule,
  applyKubernetesArgument,
  kubernetesModules,
  selectKubernetes,
} from './kubernetes-versions.js';

export { REPO_ROOT } from './kubernetes-versions.js';

const LOCK_FILE = join(CONTROL_PLANE_CACHE_DIR, 'build.lock');
const PACKAGES = ['k8s.io/kubernetes/cmd/kube-apiserver', 'k8s.io/kubernetes/cmd/kubectl', 'go.etcd.io/etcd/server/v3'];

export interface ControlPlaneBinaries {
  binDir: string;
  kubeApiserver: string;
  etcd: string;
  kubectl: string;
}

export class ControlPlaneBuildError extends Error {
  constructor(
    message: string,
    readonly code: 'GO_MISSING' | 'BUILD_FAILED' | 'UNKNOWN_KUBERNETES',
  ) {
    super(message);
    this.name = 'ControlPlaneBuildError';
  }
}

export interface EnsureOptions {
  /** Where messages go, one line at a time; stderr by default. */
  log?: (line: string) => void;
  /**
   * Where the build's progress goes when it is a terminal: one line rewritten
   * in place. Otherwise progress goes to `log`, a line per tenth of the build.
   * stderr by default.
   */
  progress?: ProgressStream;
  /** Rebuild even when the stamp matches. */
  force?: boolean;
  /** Which Kubernetes: KUBE_EVENTS_KUBERNETES (the newest by default), or as selectKubernetes() returns it. */
  kubernetes?: KubernetesModule;
}

export function binariesIn(binDir: string): ControlPlaneBinaries {
  return {
    binDir,
    kubeApiserver: join(binDir, 'kube-apiserver'),
    etcd: join(binDir, 'etcd'),
    kubectl: join(binDir, 'kubectl'),
  };
}

/** The Kubernetes minor KUBE_EVENTS_KUBERNETES names (the newest by default); a ControlPlaneBuildError when it names none here. */
export function chosenKubernetes(): KubernetesModule {
  try {
    return selectKubernetes();
  } catch (error) {
    throw new ControlPlaneBuildError((error as Error).message, 'UNKNOWN_KUBERNETES');
  }
}

/** Hash of go.mod + go.sum: the binaries are rebuilt whenever it changes. */
async function moduleHash(moduleDir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum']) {
    hash
      .update(file)
      .update('\0')
      .update(await readFile(join(moduleDir, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

/** The Kubernetes release a module pins (the newest's by default), e.g. `v1.37.2`. */
export async function kubernetesVersion(module: KubernetesModule = chosenKubernetes()): Promise<string> {
  const goMod = await readFile(join(module.moduleDir, 'go.mod'), 'utf8');
  const match = /^\s*k8s\.io\/kubernetes\s+(v\d+\.\d+\.\d+\S*)/m.exec(goMod);
  if (!match) throw new Error(`no k8s.io/kubernetes requirement in ${module.moduleDir}/go.mod`);
  return match[1];
}

/** The Go a module needs, from its go directive: `Go 1.26`. */
async function goNeeded(module: KubernetesModule): Promise<string> {
  const goMod = await readFile(join(module.moduleDir, 'go.mod'), 'utf8').catch(() => '');
  const minor = /^go\s+(\d+\.\d+)/m.exec(goMod)?.[1];
  return minor ? `Go ${minor}` : 'Go';
}

async function upToDate(binaries: ControlPlaneBinaries, hash: string): Promise<boolean> {
  if (![binaries.kubeApiserver, binaries.etcd, binaries.kubectl].every((file) => existsSync(file))) return false;
  try {
    const stamp = JSON.parse(await readFile(join(binaries.binDir, '.stamp.json'), 'utf8')) as { hash?: string };
    return stamp.hash === hash;
  } catch {
    return false;
  }
}

/**
 * `go version` output, or a ControlPlaneBuildError when Go is not installed;
 * `needed` (e.g. `Go 1.26`) is the version its message asks for.
 */
export function goVersion(needed = 'Go 1.26'): string {
  const go = process.env.GO ?? 'go';
  const result = spawnSync(go, ['version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new ControlPlaneBuildError(
      `Go is needed to build the local control plane (kube-apiserver, etcd, kubectl) for the end-to-end tests, ` +
        `but \`${go} version\` failed: ${result.error?.message ?? result.stderr.trim()}. ` +
        `Install ${needed} or newer (https://go.dev/dl/) and put it on PATH (or set GO=/path/to/go), ` +
        `or point KUBE_EVENTS_E2E_KUBECONFIG at an existing cluster, or run only the unit tests with \`npm run test:unit\`.`,
      'GO_MISSING',
    );
  }
  return result.stdout.trim();
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock file holding the builder's pid, so that two builds never run at once. */
async function acquireLock(log: (line: string) => void): Promise<() => Promise<void>> {
  await mkdir(CONTROL_PLANE_CACHE_DIR, { recursive: true });
  let announced = false;
  for (;;) {
    try {
      const handle = await open(LOCK_FILE, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(LOCK_FILE, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number((await readFile(LOCK_FILE, 'utf8').catch(() => '')).trim());
    if (!owner || !pidAlive(owner)) {
      // Stale (or just being written): check again after a moment.
      const age = Date.now() - (await stat(LOCK_FILE).catch(() => ({ mtimeMs: 0 }))).mtimeMs;
      if (age > 2_000) await rm(LOCK_FILE, { force: true });
    } else if (!announced) {
      log(`control plane: waiting for the build running in process ${owner}…`);
      announced = true;
    }
    await sleep(1_000);
  }
}

/** Runs a command, handing each line it prints (stdout and stderr) to `onLine`; resolves with its exit code. */
function run(command: string, args: string[], cwd: string, onLine: (line: string) => void): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        if (line.trim()) onLine(line);
      });
    }
    child.once('error', reject);
    child.once('close', (code, signal) => resolvePromise(code ?? (signal ? 128 : 1)));
  });
}

/**
 * The packages `go build` will compile for PACKAGES: those `go list` finds
 * stale in the build cache (all of them on a first build, a handful after a
 * change), and every package of the build, to tell `go build -v`'s lines
 * apart from the compiler's messages. Downloads the modules it lacks on the
 * way, which it reports.
 */
async function packagesToBuild(
  go: string,
  moduleDir: string,
  progress: BuildProgress,
): Promise<{ stale: number; all: Set<string> }> {
  const all = new Set<string>();
  let stale = 0;
  const errors: string[] = [];
  const code = await run(
    go,
    // A main package is always stale (its binary is not installed) but is compiled only when its code changed.
    ['list', '-deps', '-f', '{{if and .Stale (ne .Name "main")}}+{{else}}-{{end}}{{.ImportPath}}', ...PACKAGES],
    moduleDir,
    (line) => {
      if (line.startsWith('go: downloading ')) progress.downloadedOne();
      else if (/^[+-][\w.-]+(\/[\w.~+-]+)*$/.test(line)) {
        all.add(line.slice(1));
        if (line.startsWith('+')) stale += 1;
      } else errors.push(line);
    },
  );
  for (const line of errors) progress.line(`  ${line}`);
  if (code !== 0) {
    throw new ControlPlaneBuildError(
      `listing the control plane's packages failed (\`go list\` exited with ${code} in ${moduleDir}); see the output above.`,
      'BUILD_FAILED',
    );
  }
  return { stale, all };
}

/**
 * Builds kube-apiserver, etcd and kubectl of the chosen Kubernetes minor
 * unless they are already in .cache/control-plane/v1.<minor>/bin for its
 * go.mod/go.sum, and returns their paths. Rejects with ControlPlaneBuildError
 * when Go is missing or the build fails.
 */
export async function ensureControlPlaneBinaries(options: EnsureOptions = {}): Promise<ControlPlaneBinaries> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const progress = new BuildProgress(options.progress ?? process.stderr, log);
  const module = options.kubernetes ?? chosenKubernetes();
  const moduleDir = module.moduleDir;
  const binaries = binariesIn(module.binDir);
  const hash = await moduleHash(moduleDir);
  if (!options.force && (await upToDate(binaries, hash))) return binaries;

  const go = process.env.GO ?? 'go';
  const version = goVersion(await goNeeded(module));
  const release = await acquireLock(log);
  try {
    // Another process may have finished the build while we waited for the lock.
    if (!options.force && (await upToDate(binaries, hash))) return binaries;

    const kubernetes = await kubernetesVersion(module);
    const [, major, minor] = /^v(\d+)\.(\d+)/.exec(kubernetes) ?? [];
    log(
      `control plane: building kube-apiserver, etcd and kubectl (Kubernetes ${kubernetes}) from the Go module proxy ` +
        `with ${version}; the first build takes several minutes (about 1 GB of modules, a few GB of memory), ` +
        `later ones seconds…`,
    );
    const outDir = join(CONTROL_PLANE_CACHE_DIR, module.minor, `bin.tmp-${process.pid}`);
    await rm(outDir, { recursive: true, force: true });
    await mkdir(outDir, { recursive: true });
    // What Kubernetes' own build stamps, so that `kubectl version` and
    // `/version` report the real release instead of v0.0.0-master.
    const ldflags = [
      '-s',
      '-w',
      ...['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].flatMap((pkg) => [
        `-X ${pkg}.gitVersion=${kubernetes}`,
        `-X ${pkg}.gitMajor=${major}`,
        `-X ${pkg}.gitMinor=${minor}`,
        `-X ${pkg}.gitTreeState=clean`,
      ]),
    ].join(' ');
    const started = Date.now();
    let code: number;
    try {
      progress.resolving();
      const packages = await packagesToBuild(go, moduleDir, progress);
      // Most packages stale: a first build (or a new Go), whose big packages come last.
      progress.compiling(packages.stale, packages.stale >= packages.all.size * 0.9);
      // `go build -v` prints each package's import path as it compiles it,
      // on stderr with the compiler's own messages.
      code = await run(go, ['build', '-v', '-ldflags', ldflags, '-o', `${outDir}/`, ...PACKAGES], moduleDir, (line) =>
        packages.all.has(line) ? progress.compiledOne() : progress.line(`  ${line}`),
      );
    } finally {
      progress.finish();
    }
    if (code !== 0) {
      await rm(outDir, { recursive: true, force: true });
      throw new ControlPlaneBuildError(
        `building the control plane failed (\`go build\` exited with ${code} in ${moduleDir}); see the output above.`,
        'BUILD_FAILED',
      );
    }
    // `go build -o dir/` names a binary after the last element of its import
    // path, skipping a major-version suffix: go.etcd.io/etcd/server/v3 ⇒ `server`.
    const etcdName = ['server', 'v3', 'etcd'].find((name) => existsSync(join(outDir, name)));
    if (!etcdName) throw new ControlPlaneBuildError(`go build produced no etcd binary in ${outDir}`, 'BUILD_FAILED');
    if (etcdName !== 'etcd') await rename(join(outDir, etcdName), join(outDir, 'etcd'));
    await writeFile(
      join(outDir, '.stamp.json'),
      JSON.stringify(
        { hash, kubernetes, go: version, builtAt: new Date().toISOString(), seconds: (Date.now() - started) / 1000 },
        null,
        2,
      ),
    );
    await rm(module.binDir, { recursive: true, force: true });
    await rename(outDir, module.binDir);
    log(`control plane: built in ${Math.round((Date.now() - started) / 1000)} s into ${module.binDir}`);
    return binaries;
  } finally {
    await release();
  }
}

async function main(): Promise<void> {
  const force = process.argv.includes('--force');
  try {
    applyKubernetesArgument();
    const modules = process.argv.includes('--all') ? kubernetesModules() : [chosenKubernetes()];
    for (const kubernetes of modules) {
      const binaries = await ensureControlPlaneBinaries({ force, kubernetes });
      process.stdout.write(
        `control plane binaries (Kubernetes ${await kubernetesVersion(kubernetes)}) are ready in ${binaries.binDir}:\n` +
          `  ${binaries.kubeApiserver}\n  ${binaries.etcd}\n  ${binaries.kubectl}\n`,
      );
    }
  } catch (error) {
    process.stderr.write(
      `\n${error instanceof ControlPlaneBuildError ? error.message : String((error as Error)?.stack ?? error)}\n`,
    );
    process.exitCode = error instanceof ControlPlaneBuildError && error.code === 'GO_MISSING' ? 3 : 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}
