// kubectl against a control plane.

import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubectlOptions, KubectlResult } from './definitions.js';

export function loadKubeConfig(path: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(path);
  return kubeConfig;
}

export function findOnPath(command: string): string | undefined {
  for (const entry of (process.env.PATH ?? '').split(delimiter)) {
    if (!entry) continue;
    const candidate = join(entry, command);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export function runKubectl(
  binDir: string,
  kubeconfigPath: string,
  args: string[],
  options: KubectlOptions = {},
): Promise<KubectlResult> {
  const kubectl = binDir ? join(binDir, 'kubectl') : findOnPath('kubectl');
  if (!kubectl || !existsSync(kubectl)) {
    return Promise.reject(
      new Error(`kubectl not found (looked in ${binDir || 'PATH'}); run \`npm run control-plane:build\``),
    );
  }
  return new Promise((resolve, reject) => {
    const child = spawn(kubectl, args, {
      env: { ...process.env, KUBECONFIG: options.kubeconfigPath ?? kubeconfigPath },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 30_000,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const signals: Record<string, number> = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2 };
      resolve({ stdout, stderr, code: code ?? 128 + (signal ? (signals[signal] ?? 0) : 0) });
    });
    child.stdin.end(options.input ?? '');
  });
}
