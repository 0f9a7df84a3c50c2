// Jest globalSetup of the `e2e` project: builds the control plane if needed
// and starts one for the whole run, then hands it to the test files through
// process.env (KUBECONFIG_E2E, KUBE_EVENTS_E2E_*; see E2E_ENV in
// tools/control-plane/control-plane.ts and sharedControlPlane()).
//
// Jest loads global setup files through its CommonJS transform, where the
// repository's ESM sources (relative `.js` imports, import.meta) do not load.
// So this file uses Node built-ins only and runs the control plane in a child
// process, tools/control-plane/cli.ts --json, under @swc-node/register
// like every other script. The child stops when Jest's teardown asks it to,
// and also when Jest dies (its stdin closes).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { GlobalConfig, ProjectConfig } from 'jest';

const CHILD_KEY = '__KUBE_EVENTS_E2E_CONTROL_PLANE__';
const GO_MISSING_EXIT_CODE = 3;

export default async function globalSetup(_globalConfig: GlobalConfig, projectConfig: ProjectConfig): Promise<void> {
  const rootDir = projectConfig.rootDir;
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      '--import',
      '@swc-node/register/esm-register',
      join(rootDir, 'tools/control-plane/cli.ts'),
      '--json',
      '--stop-on-stdin-close',
    ],
    { cwd: rootDir, stdio: ['pipe', 'pipe', 'inherit'], env: process.env },
  );
  (globalThis as Record<string, unknown>)[CHILD_KEY] = child;

  const outcome = await new Promise<
    { env: Record<string, string>; seconds: number; dir?: string; kubernetes?: string } | { exitCode: number }
  >((resolve, reject) => {
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (!line.startsWith('{')) {
          if (line) process.stderr.write(`${line}\n`);
          continue;
        }
        const message = JSON.parse(line) as {
          ready?: boolean;
          env: Record<string, string>;
          seconds: number;
          dir?: string;
          kubernetes?: string;
        };
        if (message.ready) resolve(message);
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ exitCode: code ?? (signal ? 128 : 1) }));
  });

  if ('exitCode' in outcome) {
    delete (globalThis as Record<string, unknown>)[CHILD_KEY];
    throw new Error(
      `e2e: could not ${outcome.exitCode === GO_MISSING_EXIT_CODE ? 'build' : 'build or start'} the local control plane ` +
        `(tools/control-plane/cli.ts exited with ${outcome.exitCode}); see its output above.`,
    );
  }

  Object.assign(process.env, outcome.env);
  const external = outcome.env.KUBE_EVENTS_E2E_EXTERNAL === '1';
  process.stderr.write(
    external
      ? `\ne2e: using the existing cluster from KUBE_EVENTS_E2E_KUBECONFIG (${outcome.env.KUBE_EVENTS_E2E_SERVER})\n`
      : `\ne2e: control plane (Kubernetes ${outcome.kubernetes}) ready at ${outcome.env.KUBE_EVENTS_E2E_SERVER} in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
          `(logs in ${outcome.dir})\n`,
  );
  // Let Jest exit even if teardown never runs: the child then sees its stdin close.
  child.unref();
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
}
