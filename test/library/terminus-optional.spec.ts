// @nestjs/terminus is an optional peer dependency: only the nestjs-kube-events/terminus entry loads it.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../support/packages-loaded.ts', import.meta.url));
/** Each test starts a Node.js that compiles the library's sources: slow on a busy machine. */
const CHILD_TIMEOUT_MS = 60_000;

/** Imports `entry` in a fresh Node.js and counts the modules of @nestjs/terminus that loaded. */
async function terminusModulesLoadedBy(entry: string): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      '@swc-node/register/esm-register',
      SCRIPT,
      fileURLToPath(new URL(entry, import.meta.url)),
      '@nestjs/terminus',
    ],
    { cwd: ROOT, timeout: CHILD_TIMEOUT_MS },
  );
  return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { loaded: number }).loaded;
}

describe('@nestjs/terminus, an optional peer dependency', () => {
  it(
    "is not loaded by 'nestjs-kube-events'",
    async () => {
      expect(await terminusModulesLoadedBy('../../libs/kube-events/src/index.ts')).toBe(0);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    "is loaded by 'nestjs-kube-events/terminus'",
    async () => {
      expect(await terminusModulesLoadedBy('../../libs/kube-events/src/terminus/index.ts')).toBeGreaterThan(0);
    },
    CHILD_TIMEOUT_MS,
  );
});
