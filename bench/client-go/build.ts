// Builds bench/client-go (client-go's tools/events at the control plane's
// version) into .cache/client-go-bench, once: like the control plane, it is
// rebuilt only when go.mod, go.sum or main.go change.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT, goVersion } from '../../tools/control-plane/build.js';

const MODULE_DIR = join(REPO_ROOT, 'bench/client-go');
const CACHE_DIR = join(REPO_ROOT, '.cache/client-go-bench');
const BINARY = join(CACHE_DIR, 'events-client');
const STAMP = join(CACHE_DIR, 'stamp.json');

export interface ClientGoBinary {
  path: string;
  /** Seconds the build took, when this call built it. */
  builtInSeconds?: number;
  /** Seconds the last build took (as recorded when it was built). */
  lastBuildSeconds?: number;
}

async function sourceHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'main.go']) {
    hash
      .update(file)
      .update('\0')
      .update(await readFile(join(MODULE_DIR, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

function goBuild(output: string, log: (line: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.env.GO ?? 'go', ['build', '-o', output, '.'], {
      cwd: MODULE_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const forward = (chunk: Buffer) =>
      chunk
        .toString()
        .split('\n')
        .filter((line) => line.trim())
        .forEach((line) => log(`  ${line}`));
    child.stdout.on('data', forward);
    child.stderr.on('data', forward);
    child.once('error', reject);
    child.once('close', (code) => resolve(code ?? 1));
  });
}

export async function ensureClientGoBinary(
  log = (line: string) => process.stderr.write(`${line}\n`),
): Promise<ClientGoBinary> {
  const hash = await sourceHash();
  const stamp = JSON.parse(await readFile(STAMP, 'utf8').catch(() => '{}')) as { hash?: string; seconds?: number };
  if (stamp.hash === hash && existsSync(BINARY)) return { path: BINARY, lastBuildSeconds: stamp.seconds };

  const version = goVersion();
  log(
    `client-go bench: building bench/client-go with ${version} (cold: a few minutes of module downloads and compiling)…`,
  );
  await mkdir(CACHE_DIR, { recursive: true });
  const partial = `${BINARY}.tmp-${process.pid}`;
  const started = Date.now();
  const code = await goBuild(partial, log);
  if (code !== 0) throw new Error(`go build exited with ${code} in ${MODULE_DIR}; see the output above`);
  const seconds = (Date.now() - started) / 1000;
  await rename(partial, BINARY);
  await writeFile(STAMP, JSON.stringify({ hash, go: version, seconds, builtAt: new Date().toISOString() }, null, 2));
  log(`client-go bench: built in ${seconds.toFixed(1)} s`);
  return { path: BINARY, builtInSeconds: seconds, lastBuildSeconds: seconds };
}
