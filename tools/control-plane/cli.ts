// npm run control-plane [-- --event-ttl=5s] [--kubernetes=1.35]
//
// --kubernetes= (or KUBE_EVENTS_KUBERNETES) picks the Kubernetes minor; the
// newest this repository builds by default.
//
// Builds the control plane if needed, starts one, prints how to reach it and
// runs until Ctrl-C, then stops it cleanly.
//
// With --json (what test/e2e/global-setup.ts uses) progress goes to stderr
// and a single line `{"ready":true,"env":{...}}` goes to stdout once the
// control plane is ready. With --stop-on-stdin-close it also stops when its
// stdin (a pipe from the parent) closes, that is when the parent goes away.
// It always stops on SIGINT/SIGTERM/SIGHUP.
import { ControlPlaneBuildError, ensureControlPlaneBinaries, kubernetesVersion } from './build.js';
import { type ControlPlane, controlPlaneEnv, startControlPlane } from './control-plane.js';
import { applyKubernetesArgument } from './kubernetes-versions.js';

const json = process.argv.includes('--json');
const stopOnStdinClose = process.argv.includes('--stop-on-stdin-close');
const eventTtl = process.argv.find((arg) => arg.startsWith('--event-ttl='))?.slice('--event-ttl='.length);
const say = (line: string) => process.stderr.write(`${line}\n`);

let controlPlane: ControlPlane | undefined;
let stopping: Promise<void> | undefined;

function shutdown(reason: string, code = 0): Promise<void> {
  stopping ??= (async () => {
    if (controlPlane && !controlPlane.external) say(`control plane: stopping (${reason})…`);
    try {
      await controlPlane?.stop();
    } finally {
      process.exit(code);
    }
  })();
  return stopping;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void shutdown(signal, 0));
}

try {
  const started = Date.now();
  applyKubernetesArgument();
  let kubernetes: string | undefined;
  if (process.env.KUBE_EVENTS_E2E_KUBECONFIG) {
    controlPlane = await startControlPlane();
  } else {
    const { binDir } = await ensureControlPlaneBinaries();
    kubernetes = await kubernetesVersion();
    say(`control plane: starting etcd and kube-apiserver (Kubernetes ${kubernetes})…`);
    controlPlane = await startControlPlane({ eventTtl, binDir });
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (stopping) await stopping; // a signal arrived during start-up
  const cp = controlPlane;
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ ready: true, seconds: Number(seconds), env: controlPlaneEnv(cp), dir: cp.dir, kubernetes })}\n`,
    );
  } else {
    process.stdout.write(
      [
        cp.external
          ? `Using the existing cluster from KUBE_EVENTS_E2E_KUBECONFIG (${cp.server}); nothing was started.`
          : `Control plane (Kubernetes ${kubernetes}) ready in ${seconds} s at ${cp.server}${eventTtl ? ` (event TTL ${eventTtl})` : ''}.`,
        '',
        `  export KUBECONFIG=${cp.kubeconfigPath}`,
        ...(cp.binDir ? [`  export PATH=${cp.binDir}:$PATH   # kubectl matching the API server`] : []),
        '',
        `Admin token: ${cp.token}`,
        ...(cp.dir
          ? [
              `Logs: ${cp.dir}/kube-apiserver.log, ${cp.dir}/etcd.log`,
              '(Kubernetes 1.37 logs `E… The manifest file is empty, ignoring.` at every start: harmless.)',
            ]
          : []),
        cp.external ? '' : 'Press Ctrl-C to stop it.',
        '',
      ].join('\n'),
    );
  }
  if (stopOnStdinClose) {
    process.stdin.on('data', () => undefined); // the parent never writes; this only waits for EOF
    process.stdin.on('end', () => void shutdown('parent went away'));
    process.stdin.on('error', () => void shutdown('parent went away'));
  }
  // Stay alive (the control plane's processes are unref'd) until a signal.
  setInterval(() => undefined, 1 << 30);
} catch (error) {
  if (error instanceof ControlPlaneBuildError) {
    say(`\n${error.message}`);
    await shutdown('start-up failed', error.code === 'GO_MISSING' ? 3 : 1);
  } else {
    say(`\ncontrol plane: start-up failed: ${(error as Error)?.stack ?? String(error)}`);
    await shutdown('start-up failed', 1);
  }
}
