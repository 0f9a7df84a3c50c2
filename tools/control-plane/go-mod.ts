// The go.mod of a control plane module (tools/control-plane/kubernetes/v1.<minor>),
// written from the go.mod of the k8s.io/kubernetes release it builds.
//
// k8s.io/kubernetes requires its staging modules (k8s.io/api, k8s.io/client-go,
// …) at v0.0.0 and points them at ./staging with replace directives, which Go
// ignores in a dependency. So the module that builds kube-apiserver carries a
// replace of its own for each, to the matching release: Kubernetes v1.37.2 ⇒
// v0.37.2. etcd is built at the version Kubernetes requires, and the go
// directive is Kubernetes' own. `go mod tidy` adds the rest.

/** What a control plane module is built from, read from k8s.io/kubernetes' go.mod. */
export interface KubernetesRelease {
  /** The release, e.g. `v1.37.2`. */
  version: string;
  /** Its `go` directive, e.g. `1.26.0`: the oldest Go that builds it. */
  go: string;
  /** Its `godebug` lines, verbatim (they set the runtime defaults of what it builds). */
  godebug: string[];
  /** The etcd release it requires, e.g. `v3.7.0`. */
  etcd: string;
  /** The modules it points at ./staging, e.g. `k8s.io/api`. */
  stagingModules: string[];
}

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/;

/** `1.37.2` or `v1.37.2` as `v1.37.2`; throws on anything else. */
export function kubernetesVersionTag(input: string): string {
  const match = VERSION.exec(input.trim());
  if (match?.[1] !== '1') {
    throw new Error(`"${input}" is not a Kubernetes release: expected one like 1.37.2`);
  }
  return `v${match[1]}.${match[2]}.${match[3]}${match[4] ?? ''}`;
}

/** The staging modules' release for a Kubernetes release: v1.37.2 ⇒ v0.37.2. */
export function stagingVersion(kubernetes: string): string {
  return kubernetesVersionTag(kubernetes).replace(/^v1\./, 'v0.');
}

/** The minor of a release, as the name of its module directory: v1.37.2 ⇒ `v1.37`. */
export function minorOf(kubernetes: string): string {
  return /^v\d+\.\d+/.exec(kubernetesVersionTag(kubernetes))![0];
}

/** Reads what the control plane module needs from the go.mod of k8s.io/kubernetes at `version`. */
export function readKubernetesGoMod(version: string, goMod: string): KubernetesRelease {
  const lines = goMod.split('\n').map((line) => line.replace(/\/\/.*$/, '').trim());
  const go = lines.map((line) => /^go\s+(\S+)$/.exec(line)?.[1]).find(Boolean);
  if (!go) throw new Error(`k8s.io/kubernetes ${version}: its go.mod has no go directive`);
  const godebug = goMod.split('\n').filter((line) => /^godebug\s/.test(line));
  // Requirements appear as `path version` inside a block or after `require`.
  const required = (path: string) =>
    lines
      .map((line) => new RegExp(`^(?:require\\s+)?${path.replace(/\./g, '\\.')}\\s+(v\\S+)$`).exec(line)?.[1])
      .find(Boolean);
  const etcd = required('go.etcd.io/etcd/server/v3') ?? required('go.etcd.io/etcd/client/v3');
  if (!etcd) throw new Error(`k8s.io/kubernetes ${version}: its go.mod requires no go.etcd.io/etcd/server/v3`);
  const stagingModules = lines
    .map((line) => /^(?:replace\s+)?(\S+)\s*=>\s*\.\/staging\//.exec(line)?.[1])
    .filter((path): path is string => Boolean(path));
  if (stagingModules.length === 0) {
    throw new Error(`k8s.io/kubernetes ${version}: its go.mod points no module at ./staging`);
  }
  return { version: kubernetesVersionTag(version), go, godebug, etcd, stagingModules };
}

/**
 * The control plane module's go.mod for a release, before `go mod tidy`
 * (which adds the indirect requirements and go.sum).
 */
export function controlPlaneGoMod(release: KubernetesRelease): string {
  const staging = stagingVersion(release.version);
  return [
    '// Builds the local control plane used by the end-to-end tests and the demo:',
    '// kube-apiserver, kubectl and etcd, all from the Go module proxy at the',
    '// versions Kubernetes itself pins. Written by `npm run control-plane:bump`.',
    'module nestjs-kube-events/control-plane',
    '',
    `go ${release.go}`,
    '',
    ...(release.godebug.length > 0 ? [...release.godebug, ''] : []),
    'require (',
    `\tgo.etcd.io/etcd/server/v3 ${release.etcd}`,
    `\tk8s.io/kubernetes ${release.version}`,
    ')',
    '',
    '// k8s.io/kubernetes points its staging modules at ./staging with replace',
    '// directives, which Go ignores in a dependency: pin each to its release.',
    'replace (',
    ...[...release.stagingModules].sort().map((path) => `\t${path} => ${path} ${staging}`),
    ')',
    '',
  ].join('\n');
}

/** tools.go of a control plane module: the commands it builds, so that `go mod tidy` keeps what they need. */
export const TOOLS_GO = `//go:build tools

// Package tools pins the commands this module builds.
package tools

import (
\t_ "go.etcd.io/etcd/server/v3"
\t_ "k8s.io/kubernetes/cmd/kube-apiserver"
\t_ "k8s.io/kubernetes/cmd/kubectl"
)
`;
