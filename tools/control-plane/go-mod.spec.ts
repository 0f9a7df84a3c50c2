import { controlPlaneGoMod, kubernetesVersionTag, minorOf, readKubernetesGoMod } from './go-mod.js';

// The parts of k8s.io/kubernetes v1.37.2's go.mod the control plane module depends on.
const KUBERNETES_GO_MOD = `// This is a generated file. Do not edit directly.

module k8s.io/kubernetes

go 1.26.0

godebug default=go1.26

require (
	github.com/blang/semver/v4 v4.0.0
	go.etcd.io/etcd/api/v3 v3.7.0
	go.etcd.io/etcd/client/v3 v3.7.0
	k8s.io/api v0.0.0
	k8s.io/streaming v0.0.0
)

require (
	go.etcd.io/etcd/server/v3 v3.7.0 // indirect
	go.etcd.io/raft/v3 v3.7.0 // indirect
)

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/cri-streaming => ./staging/src/k8s.io/cri-streaming
	k8s.io/streaming => ./staging/src/k8s.io/streaming
)

replace github.com/example/fork => github.com/example/fork v1.2.3
`;

describe('the control plane module for a Kubernetes release', () => {
  const release = readKubernetesGoMod('1.37.2', KUBERNETES_GO_MOD);

  it('pins every module Kubernetes points at ./staging to the matching v0 release, new ones included', () => {
    const goMod = controlPlaneGoMod(release);
    expect(goMod).toContain('\tk8s.io/api => k8s.io/api v0.37.2\n');
    expect(goMod).toContain('\tk8s.io/cri-streaming => k8s.io/cri-streaming v0.37.2\n');
    expect(goMod).toContain('\tk8s.io/streaming => k8s.io/streaming v0.37.2\n');
    expect(goMod.match(/=>/g)).toHaveLength(3);
  });

  it('builds the Kubernetes release and the etcd it requires, with its go directive and runtime defaults', () => {
    const goMod = controlPlaneGoMod(release);
    expect(goMod).toContain('\nmodule nestjs-kube-events/control-plane\n');
    expect(goMod).toContain('\ngo 1.26.0\n');
    expect(goMod).toContain('\ngodebug default=go1.26\n');
    expect(goMod).toContain('\tk8s.io/kubernetes v1.37.2\n');
    expect(goMod).toContain('\tgo.etcd.io/etcd/server/v3 v3.7.0\n');
  });

  it('reads single-line requirements and replaces too', () => {
    const single = readKubernetesGoMod(
      'v1.35.4',
      'module k8s.io/kubernetes\n\ngo 1.25.0\n\nrequire go.etcd.io/etcd/server/v3 v3.6.5\n\nreplace k8s.io/api => ./staging/src/k8s.io/api\n',
    );
    expect(single).toEqual({
      version: 'v1.35.4',
      go: '1.25.0',
      godebug: [],
      etcd: 'v3.6.5',
      stagingModules: ['k8s.io/api'],
    });
  });

  it('refuses what is not a Kubernetes release', () => {
    expect(kubernetesVersionTag('1.37.3')).toBe('v1.37.3');
    expect(minorOf('v1.38.0-rc.1')).toBe('v1.38');
    expect(() => kubernetesVersionTag('1.37')).toThrow('expected one like 1.37.2');
    expect(() => kubernetesVersionTag('0.37.2')).toThrow('expected one like 1.37.2');
  });
});
