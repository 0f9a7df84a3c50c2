// Points the control plane at other Kubernetes releases, one or more:
//
//   npm run control-plane:bump -- 1.37.3
//   npm run control-plane:bump -- 1.38.0 1.36.5   # a new minor, and the new oldest
//
// For each, it reads k8s.io/kubernetes' go.mod from the Go module proxy and
// writes tools/control-plane/kubernetes/v1.<minor>/go.mod from it (a replace
// for each of its ./staging modules, its go directive, its etcd; see
// go-mod.ts), then runs `go mod tidy` there. Modules of minors no longer
// supported upstream (older than the newest but two) are removed. The next
// build (`npm run control-plane:build`) rebuilds what changed.
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  TOOLS_GO,
  controlPlaneGoMod,
  kubernetesVersionTag,
  minorOf,
  readKubernetesGoMod,
  stagingVersion,
} from './go-mod.js';
import { KUBERNETES_MODULES_DIR, REPO_ROOT, kubernetesModules } from './kubernetes-versions.js';

/** Upstream supports the newest three minors. */
const SUPPORTED_MINORS = 3;

const say = (line: string) => process.stderr.write(`${line}\n`);

/** Runs go with `args` in `cwd`, its stderr passed through; resolves with its stdout, rejects when it fails. */
function go(args: string[], cwd: string): Promise<string> {
  const command = process.env.GO ?? 'go';
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolvePromise(stdout)
        : reject(new Error(`\`${command} ${args.join(' ')}\` exited with ${code} in ${cwd}`)),
    );
  });
}

async function bump(input: string): Promise<void> {
  const version = kubernetesVersionTag(input);
  say(`control plane: reading k8s.io/kubernetes ${version} from the Go module proxy…`);
  // Outside any module, so that this module's go.mod does not get in the way.
  const download = JSON.parse(await go(['mod', 'download', '-json', `k8s.io/kubernetes@${version}`], tmpdir())) as {
    GoMod?: string;
    Error?: string;
  };
  if (!download.GoMod) throw new Error(`k8s.io/kubernetes ${version}: ${download.Error ?? 'no go.mod downloaded'}`);
  const release = readKubernetesGoMod(version, await readFile(download.GoMod, 'utf8'));

  const moduleDir = join(KUBERNETES_MODULES_DIR, minorOf(version));
  await mkdir(moduleDir, { recursive: true });
  await writeFile(join(moduleDir, 'go.mod'), controlPlaneGoMod(release));
  await writeFile(join(moduleDir, 'tools.go'), TOOLS_GO);
  say(`control plane: go mod tidy in ${relative(REPO_ROOT, moduleDir)}…`);
  await go(['mod', 'tidy'], moduleDir);
  say(
    `control plane: ${relative(REPO_ROOT, moduleDir)} builds Kubernetes ${version} with etcd ${release.etcd} ` +
      `(${release.stagingModules.length} staging modules at ${stagingVersion(version)}; go ${release.go} or newer)`,
  );
}

async function pruneUnsupported(): Promise<void> {
  const modules = kubernetesModules();
  const newest = Number(modules[modules.length - 1]?.minor.split('.')[1]);
  for (const module of modules) {
    if (Number(module.minor.split('.')[1]) > newest - SUPPORTED_MINORS) continue;
    await rm(module.moduleDir, { recursive: true, force: true });
    say(`control plane: removed ${relative(REPO_ROOT, module.moduleDir)}, no longer supported upstream`);
  }
}

async function main(): Promise<void> {
  const versions = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
  if (versions.length === 0) {
    say('usage: npm run control-plane:bump -- <Kubernetes release>… (e.g. 1.37.3)');
    process.exitCode = 2;
    return;
  }
  try {
    for (const version of versions) await bump(version);
    await pruneUnsupported();
    const minors = kubernetesModules().map((module) => module.minor.slice(1));
    say(`control plane: the modules build Kubernetes ${minors.join(', ')}; the newest is the default.`);
  } catch (error) {
    say(`\ncontrol plane: ${(error as Error)?.message ?? String(error)}`);
    process.exitCode = 1;
  }
}

await main();
