// Where Events about cluster-scoped objects go, against the real
// kube-apiserver: it takes them in default or kube-system only (which is why
// clusterScopedNamespace accepts those two), and kubectl finds them in either.
import { V1MicroTime, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeEvent } from 'nestjs-kube-events';
import {
  type ControlPlane,
  serviceAccountKubeConfig,
  sharedControlPlane,
} from '../../tools/control-plane/control-plane.js';
import {
  apiRefusal,
  CONTROLLER,
  forbidden,
  randomSuffix,
  rejectionOf,
  retrying,
  Scratch,
} from './support/library-fixtures.js';
import { ROLE_NAME, SHIPPED_ROLE } from './support/publisher-rbac.js';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('Events about cluster-scoped objects, on the real API server', () => {
  let cp: ControlPlane;
  let scratch: Scratch;
  /** Objects whose Events in kube-system the test removes afterwards (the fixtures clean default only). */
  const inKubeSystem = new Set<string>();

  beforeEach(async () => {
    cp = sharedControlPlane();
    scratch = await Scratch.create(cp.kubeConfig(), 'cluster-scoped-e2e');
  });
  afterEach(async () => {
    if (scratch && inKubeSystem.size) {
      const { items } = await scratch.events.listNamespacedEvent({ namespace: 'kube-system' });
      for (const event of items) {
        if (inKubeSystem.has(event.regarding?.uid ?? ''))
          await scratch.deleteEvent(event.metadata!.name!, 'kube-system').catch(() => undefined);
      }
    }
    inKubeSystem.clear();
    await scratch?.cleanup();
  });

  it('refuses an Event about a cluster-scoped object in any namespace but default and kube-system', async () => {
    const node = await scratch.node(`cluster-scoped-e2e-${Date.now().toString(36)}`);
    inKubeSystem.add(node.metadata!.uid!);
    const eventIn = (namespace: string) =>
      scratch.events.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name: `by-hand.${Date.now().toString(16)}`, namespace },
          eventTime: new V1MicroTime(),
          type: 'Normal',
          reason: 'ByHand',
          action: 'Check',
          reportingController: CONTROLLER,
          reportingInstance: 'by-hand',
          regarding: { apiVersion: 'v1', kind: 'Node', name: node.metadata!.name, uid: node.metadata!.uid },
        },
      });

    const refused = await apiRefusal(eventIn(scratch.namespace));
    expect(refused.code).toBe(422);
    expect(refused.message).toContain('involvedObject.namespace');
    expect(refused.message).toContain('does not match event.namespace');
    await expect(eventIn('kube-system')).resolves.toMatchObject({ metadata: { namespace: 'kube-system' } });
    await expect(eventIn('default')).resolves.toMatchObject({ metadata: { namespace: 'default' } });
  });

  it('with clusterScopedNamespace: kube-system, kubectl describe node shows the Event written there', async () => {
    const node = await scratch.node(`cluster-scoped-e2e-${Date.now().toString(36)}`);
    inKubeSystem.add(node.metadata!.uid!);
    const drained: KubeEvent = {
      type: 'Warning',
      reason: 'DrainStuck',
      action: 'Drain',
      note: 'pod web-0 has no replica',
    };
    const recorder = scratch.recorder({ clusterScopedNamespace: 'kube-system' });
    for (let i = 0; i < 3; i++) await recorder.publish(node, drained);

    expect(await scratch.eventsAbout(node, 'default')).toEqual([]);
    const [event, ...others] = await scratch.eventsAbout(node, 'kube-system');
    expect(others).toEqual([]);
    expect(event.series?.count).toBe(3);

    const { stdout, stderr, code } = await cp.kubectl(['describe', 'node', node.metadata!.name!]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const section = stdout.slice(stdout.indexOf('Events:'));
    expect(section).toMatch(
      new RegExp(
        `^\\s+Warning\\s+DrainStuck\\s+\\S+ \\(x3 over \\S+\\)\\s+${escape(CONTROLLER)}\\s+pod web-0 has no replica\\s*$`,
        'm',
      ),
    );
  });

  it('with clusterScopedNamespace: kube-system, kubectl events --for namespace/<name> shows the Event about a Namespace', async () => {
    // kubectl's Namespace describer prints no Events section (kubectl-describe.e2e-spec.ts); `kubectl events --for` does.
    const namespace: KubernetesObject = await scratch.namespaceObject();
    inKubeSystem.add(namespace.metadata!.uid!);
    const applied: KubeEvent = { type: 'Normal', reason: 'QuotaApplied', action: 'Apply', note: 'quota small applied' };
    await scratch.recorder({ clusterScopedNamespace: 'kube-system' }).publish(namespace, applied);

    const [event] = await scratch.eventsAbout(namespace, 'kube-system');
    expect(event.metadata?.namespace).toBe('kube-system');
    const { stdout, stderr, code } = await cp.kubectl([
      'events',
      '--for',
      `namespace/${scratch.namespace}`,
      '--namespace',
      'kube-system',
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(
      new RegExp(
        `^\\S+\\s+Normal\\s+QuotaApplied\\s+${escape(`Namespace/${scratch.namespace}`)}\\s+quota small applied\\s*$`,
        'm',
      ),
    );
  });

  it('publishes about a cluster-scoped object with the shipped Role bound in kube-system, and is refused without it', async () => {
    const node = await scratch.node(`cluster-scoped-e2e-${Date.now().toString(36)}`);
    inKubeSystem.add(node.metadata!.uid!);
    const sa = await serviceAccountKubeConfig(cp, { namespace: scratch.namespace, name: 'operator' });
    const failed: KubeEvent = {
      type: 'Warning',
      reason: 'DrainStuck',
      action: 'Drain',
      note: 'pod web-0 has no replica',
    };
    const binding = `cluster-scoped-e2e-${randomSuffix()}`;

    const unbound = await rejectionOf(
      scratch.recorder({ kubeConfig: sa.kubeConfig, clusterScopedNamespace: 'kube-system' }).publish(node, failed),
    );
    expect(unbound).toMatchObject({ statusCode: 403, reason: 'Forbidden' });

    const manifest = `${SHIPPED_ROLE}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ${binding}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ${ROLE_NAME}
subjects:
  - kind: ServiceAccount
    name: operator
    namespace: ${scratch.namespace}
`;
    const applied = await cp.kubectl(['apply', '-n', 'kube-system', '-f', '-'], { input: manifest });
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: '' });
    const roleCreated = applied.stdout.includes(`role.rbac.authorization.k8s.io/${ROLE_NAME} created`);
    try {
      const recorder = scratch.recorder({ kubeConfig: sa.kubeConfig, clusterScopedNamespace: 'kube-system' });
      // The authorizer learns of a new binding through an informer: allow it a moment.
      await retrying(() => recorder.publish(node, failed), forbidden);
      await recorder.publish(node, failed);

      const [event, ...others] = await scratch.eventsAbout(node, 'kube-system');
      expect(others).toEqual([]);
      expect(event.series?.count).toBe(2);
      // The same identity has no rights in default: the Role is needed where the option points, and only there.
      await expect(scratch.recorder({ kubeConfig: sa.kubeConfig }).publish(node, failed)).rejects.toMatchObject({
        statusCode: 403,
      });
    } finally {
      await scratch.rbac
        .deleteNamespacedRoleBinding({ name: binding, namespace: 'kube-system' })
        .catch(() => undefined);
      if (roleCreated)
        await scratch.rbac.deleteNamespacedRole({ name: ROLE_NAME, namespace: 'kube-system' }).catch(() => undefined);
    }
  });
});
