// Jest globalTeardown of the `e2e` project: stops the control plane that
// global-setup.ts started (its child process stops etcd and kube-apiserver and
// removes their temp directory). Self-contained for the same reason as
// global-setup.ts: Jest loads this file through its CommonJS transform.
import type { ChildProcess } from 'node:child_process';

const CHILD_KEY = '__KUBE_EVENTS_E2E_CONTROL_PLANE__';

export default async function globalTeardown(): Promise<void> {
  const globals = globalThis as Record<string, unknown>;
  const child = globals[CHILD_KEY] as ChildProcess | undefined;
  delete globals[CHILD_KEY];
  if (child?.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
