// What a control plane handle offers, its options, and the variables through which global-setup hands it to test files.

import { KubeConfig } from '@kubernetes/client-node';

export interface KubectlResult {
  stdout: string;
  stderr: string;
  /** Exit code; 128+n when killed by signal n (or by the timeout). */
  code: number;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin (for `apply -f -`). */
  input?: string;
  /** Another kubeconfig, e.g. a ServiceAccount's from serviceAccountKubeConfig(). */
  kubeconfigPath?: string;
  /** Default 30 s. */
  timeoutMs?: number;
}

export interface ExtraApiServerOptions {
  /** kube-apiserver --event-ttl, e.g. '5s'. Default '1h'. */
  eventTtl?: string;
  /** More kube-apiserver flags (an audit policy, a tracing configuration). */
  apiServerArgs?: string[];
}

export interface ControlPlane {
  /** A kubeconfig file for the admin user (group system:masters). */
  readonly kubeconfigPath: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** The admin bearer token. */
  readonly token: string;
  /** Directory holding kubectl (and etcd and kube-apiserver when built here). */
  readonly binDir: string;
  /** etcd client URL, or undefined against an existing cluster. */
  readonly etcdUrl?: string;
  /** kube-apiserver --etcd-prefix. */
  readonly etcdPrefix?: string;
  /** Temp directory with etcd.log / kube-apiserver.log, when this process started them. */
  readonly dir?: string;
  /** True when this handle points at a cluster it did not start (KUBE_EVENTS_E2E_KUBECONFIG). */
  readonly external: boolean;
  /** A fresh KubeConfig for the admin user. */
  kubeConfig(): KubeConfig;
  /** Runs kubectl against this control plane; never rejects for a non-zero exit. */
  kubectl(args: string[], options?: KubectlOptions): Promise<KubectlResult>;
  /**
   * Starts a second kube-apiserver against the same etcd, under its own
   * --etcd-prefix (so it is an empty cluster of its own), e.g. with a short
   * --event-ttl for expiry tests. Stop it with its own stop().
   */
  startExtraApiServer(options?: ExtraApiServerOptions): Promise<ControlPlane>;
  /** Kills what this handle started and removes its temp directory; a no-op on shared/external handles. */
  stop(): Promise<void>;
  /**
   * Kills this handle's kube-apiserver (SIGKILL, as a crash), leaving etcd
   * running; {@link startApiServerAgain} brings it back. Only on handles that
   * started their API server (startControlPlane, startExtraApiServer).
   */
  killApiServer(): Promise<void>;
  /** Starts the killed kube-apiserver again, same flags, port and certificates, and waits until it is ready. */
  startApiServerAgain(): Promise<void>;
}

export interface StartControlPlaneOptions {
  /** kube-apiserver --event-ttl, e.g. '5s'. Default '1h' (the API server's default). */
  eventTtl?: string;
  /** Where kube-apiserver, etcd and kubectl are; default: build them if needed into .cache/control-plane/v1.<minor>/bin (see KUBE_EVENTS_KUBERNETES). */
  binDir?: string;
  /** Readiness limit per attempt; default 60 s. */
  startTimeoutMs?: number;
  /** More kube-apiserver flags. */
  apiServerArgs?: string[];
}

/** Environment variables through which global-setup hands the shared control plane to test files. */
export const E2E_ENV = {
  /** Input: use this existing cluster instead of starting one. */
  existingKubeconfig: 'KUBE_EVENTS_E2E_KUBECONFIG',
  /** Output: admin kubeconfig of the shared control plane. */
  kubeconfig: 'KUBECONFIG_E2E',
  server: 'KUBE_EVENTS_E2E_SERVER',
  token: 'KUBE_EVENTS_E2E_TOKEN',
  bin: 'KUBE_EVENTS_E2E_BIN',
  etcd: 'KUBE_EVENTS_E2E_ETCD',
  etcdPrefix: 'KUBE_EVENTS_E2E_ETCD_PREFIX',
  external: 'KUBE_EVENTS_E2E_EXTERNAL',
  /** Keep temp directories (logs, etcd data) after stop, for debugging. */
  keep: 'KUBE_EVENTS_E2E_KEEP',
} as const;

export const DEFAULT_EVENT_TTL = '1h';
export const POLL_MS = 100;
export const DEFAULT_START_TIMEOUT_MS = 60_000;
export const BIND_ATTEMPTS = 5;
