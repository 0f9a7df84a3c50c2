// The operator's pod as shipped would start, checked as far as a control
// plane without a kubelet can:
//
// 1. Pod Security admission: the Deployment's pod template
//    (apps/sample-operator/deploy/deployment.yaml), created as a Pod in a
//    namespace labelled as the shipped one (enforce: restricted), is admitted
//    by the real kube-apiserver; a pod that breaks "restricted" is refused
//    there, which shows the PodSecurity admission plugin is on. Nothing runs
//    the Pod: there is no scheduler and no kubelet.
// 2. kubelet refuses runAsNonRoot with a user given by name ("cannot verify
//    user is non-root"): the Dockerfile's USER is numeric, not root, and the
//    one the pod template runs as.
// 3. The unauthenticated health port is closed to other pods: the shipped
//    NetworkPolicy selects the pod template's pods and admits no ingress.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type KubernetesObject,
  type V1Deployment,
  NetworkingV1Api,
  type V1Namespace,
  type V1NetworkPolicy,
  type V1Pod,
  type V1PodSpec,
  loadAllYaml,
} from '@kubernetes/client-node';
import { type Scratch, apiRefusal, randomSuffix, scratchPerTest } from './support/library-fixtures.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OPERATOR = join(REPO_ROOT, 'apps/sample-operator');
const RESTRICTED = 'pod-security.kubernetes.io/enforce';

function manifests(file: string): KubernetesObject[] {
  return loadAllYaml(readFileSync(join(OPERATOR, 'deploy', file), 'utf8')) as KubernetesObject[];
}

function shipped<T extends KubernetesObject>(file: string, kind: string): T {
  const found = manifests(file).find((object) => object.kind === kind);
  if (!found) throw new Error(`no ${kind} in deploy/${file}`);
  return found as T;
}

const deployment = shipped<V1Deployment>('deployment.yaml', 'Deployment');
const namespace = shipped<V1Namespace>('service-account.yaml', 'Namespace');
const networkPolicy = shipped<V1NetworkPolicy>('network-policy.yaml', 'NetworkPolicy');
const template = deployment.spec!.template;

/** The user and group the final stage of the Dockerfile runs as, as written (`USER uid[:gid]`). */
function dockerfileUser(): string {
  const lines = readFileSync(join(OPERATOR, 'Dockerfile'), 'utf8').split('\n');
  const finalStage = lines.slice(lines.findLastIndex((line) => /^FROM\s/i.test(line)));
  const users = finalStage.filter((line) => /^USER\s/i.test(line)).map((line) => line.replace(/^USER\s+/i, '').trim());
  if (users.length === 0) throw new Error('the final stage of the Dockerfile sets no USER: it would run as root');
  return users.at(-1)!;
}

/** The user and group the operator's container runs as, container settings over the pod's. */
function templateUser(): { runAsUser?: number; runAsGroup?: number; runAsNonRoot?: boolean } {
  const pod = template.spec!.securityContext ?? {};
  const container = template.spec!.containers.find((c) => c.name === 'operator')!.securityContext ?? {};
  return {
    runAsUser: container.runAsUser ?? pod.runAsUser,
    runAsGroup: container.runAsGroup ?? pod.runAsGroup,
    runAsNonRoot: container.runAsNonRoot ?? pod.runAsNonRoot,
  };
}

describe('the shipped image and pod template', () => {
  test("the Dockerfile's USER is numeric, not root, and the user and group the Deployment runs as", () => {
    const user = dockerfileUser();
    const match = /^(\d+):(\d+)$/.exec(user);
    expect(match).not.toBeNull();
    const [uid, gid] = [Number(match![1]), Number(match![2])];
    expect(uid).toBeGreaterThan(0);
    expect(templateUser()).toEqual({ runAsUser: uid, runAsGroup: gid, runAsNonRoot: true });
  });

  test('the shipped namespace enforces Pod Security "restricted"', () => {
    expect(namespace.metadata?.labels?.[RESTRICTED]).toBe('restricted');
  });
});

describe('Pod Security admission on the control plane', () => {
  let scratch: Scratch;
  scratchPerTest('pod-security', (made) => (scratch = made));

  /** A namespace labelled as the shipped one is, so that the same Pod Security level is enforced. */
  async function restrictedNamespace(): Promise<string> {
    const name = `${scratch.namespace}-restricted`;
    await scratch.createNamespace(name, { ...namespace.metadata!.labels });
    return name;
  }

  function podOf(spec: V1PodSpec, namespaceName: string): V1Pod {
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `configmirror-controller-${randomSuffix()}`, namespace: namespaceName, ...template.metadata },
      spec,
    };
  }

  test('a pod that breaks "restricted" is refused: the PodSecurity admission plugin is on', async () => {
    const ns = await restrictedNamespace();
    const refusal = await apiRefusal(
      scratch.core.createNamespacedPod({
        namespace: ns,
        // No securityContext: may run as root, keeps its capabilities, no seccomp profile.
        body: podOf({ containers: [{ name: 'plain', image: 'busybox:1.37' }] }, ns),
      }),
    );
    expect(refusal).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(refusal.message).toContain('violates PodSecurity "restricted:latest"');
  });

  test('the NetworkPolicy selects the pods of the template, admits no ingress, and the API server takes it', async () => {
    const selector = networkPolicy.spec!.podSelector!.matchLabels!;
    expect(Object.entries(selector).length).toBeGreaterThan(0);
    expect(template.metadata!.labels).toMatchObject(selector);
    expect(networkPolicy.spec).toMatchObject({ policyTypes: ['Ingress'], ingress: [] });
    const created = await scratch.admin.makeApiClient(NetworkingV1Api).createNamespacedNetworkPolicy({
      namespace: scratch.namespace,
      body: { ...networkPolicy, metadata: { ...networkPolicy.metadata, namespace: scratch.namespace } },
    });
    expect(created.spec).toMatchObject({ podSelector: { matchLabels: selector }, policyTypes: ['Ingress'] });
    expect(created.spec?.ingress ?? []).toEqual([]);
    await scratch.admin
      .makeApiClient(NetworkingV1Api)
      .deleteNamespacedNetworkPolicy({ namespace: scratch.namespace, name: created.metadata!.name! });
  });

  test('the Deployment\'s pod template is admitted as a Pod where "restricted" is enforced', async () => {
    const ns = await restrictedNamespace();
    const pod = await scratch.core.createNamespacedPod({ namespace: ns, body: podOf(template.spec!, ns) });
    expect(pod.metadata?.uid).toEqual(expect.any(String));
    expect(pod.spec?.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    // No kubelet will ever run it; an unscheduled Pod goes at once.
    await scratch.core.deleteNamespacedPod({ namespace: ns, name: pod.metadata!.name!, gracePeriodSeconds: 0 });
  });
});
