// What a person sees: `kubectl describe <object>` (the real kubectl, against
// the control plane) lists the library's Events under the object, with the
// type, reason, series count, the reporting controller as `From`, and the
// note. Each test has a fresh namespace, removed afterwards.
import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { KubernetesObject } from '@kubernetes/client-node';
import { KubeEventsModule, PublishesFailures, type KubeEvent } from 'nestjs-kube-events';
import { type ControlPlane, sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { CONTROLLER, Scratch } from './support/library-fixtures.js';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The `Events:` section of `kubectl describe`, after checking that kubectl succeeded. */
async function describeEvents(cp: ControlPlane, args: string[]): Promise<string> {
  const { stdout, stderr, code } = await cp.kubectl(['describe', ...args]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const start = stdout.indexOf('Events:');
  expect(start).toBeGreaterThanOrEqual(0);
  return stdout.slice(start);
}

/** One row of the Events table: Type, Reason, Age (with `(xN over …)` for a series), From, Message. */
function row(event: KubeEvent, count?: number): RegExp {
  const age = count ? `\\S+ \\(x${count} over \\S+\\)` : '\\S+';
  return new RegExp(
    `^\\s+${event.type}\\s+${escape(event.reason)}\\s+${age}\\s+${escape(CONTROLLER)}\\s+${escape(event.note ?? '')}\\s*$`,
    'm',
  );
}

/** `kubectl events --for <kind/name>` in `default` (where Events about cluster-scoped objects live). */
async function kubectlEvents(cp: ControlPlane, target: string): Promise<string> {
  const { stdout, stderr, code } = await cp.kubectl(['events', '--for', target, '--namespace', 'default']);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(stdout).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/);
  return stdout;
}

/** One row of `kubectl events`: Last seen (with `(xN over …)` for a series), Type, Reason, Object, Message. */
function eventsRow(event: KubeEvent, object: string, count?: number): RegExp {
  const age = count ? `\\S+ \\(x${count} over \\S+\\)` : '\\S+';
  return new RegExp(
    `^${age}\\s+${event.type}\\s+${escape(event.reason)}\\s+${escape(object)}\\s+${escape(event.note ?? '')}\\s*$`,
    'm',
  );
}

describe('kubectl describe shows the library’s Events', () => {
  let cp: ControlPlane;
  let scratch: Scratch;

  beforeEach(async () => {
    cp = sharedControlPlane();
    scratch = await Scratch.create(cp.kubeConfig(), 'describe-e2e');
  });
  afterEach(async () => {
    await scratch?.cleanup();
  });

  it('kubectl describe configmap: type, reason, count, the controller as From, the note', async () => {
    const cm = await scratch.configMap('app-config');
    const recorder = scratch.recorder();
    const failed: KubeEvent = {
      type: 'Warning',
      reason: 'SyncFailed',
      action: 'Sync',
      note: 'source ConfigMap default/app not found',
    };
    const synced: KubeEvent = { type: 'Normal', reason: 'Synced', action: 'Sync', note: 'mirrored to 3 namespaces' };
    for (let i = 0; i < 3; i++) await recorder.publish(cm, failed);
    await recorder.publish(cm, synced);

    const section = await describeEvents(cp, ['configmap', 'app-config', '--namespace', scratch.namespace]);
    expect(section).toMatch(/^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n/);
    expect(section).toMatch(row(failed, 3));
    expect(section).toMatch(row(synced));
    // One line per Event object: the three publishes are one row.
    expect(section.match(/SyncFailed/g)).toHaveLength(1);
  });

  it('kubectl describe after a failed and a successful reconcile shows the Warning and the Normal Recovered Event', async () => {
    @Injectable()
    class Mirror {
      failing = true;

      @PublishesFailures({ recovery: true })
      async reconcile(_object: KubernetesObject): Promise<void> {
        await Promise.resolve();
        if (this.failing) throw new Error('source ConfigMap default/app not found');
      }
    }
    const cm = await scratch.configMap('recovering');
    const app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: CONTROLLER }, kubeConfig: scratch.admin })],
      providers: [Mirror],
    }).compile();
    await app.init();
    try {
      const mirror = app.get(Mirror);
      for (let i = 0; i < 2; i++) await expect(mirror.reconcile(cm)).rejects.toThrow('not found');
      mirror.failing = false;
      await mirror.reconcile(cm);
    } finally {
      await app.close();
    }

    const section = await describeEvents(cp, ['configmap', 'recovering', '--namespace', scratch.namespace]);
    const failed: KubeEvent = {
      type: 'Warning',
      reason: 'ReconcileFailed',
      action: 'Reconcile',
      note: 'source ConfigMap default/app not found',
    };
    expect(section).toMatch(row(failed, 2));
    expect(section).toMatch(
      new RegExp(
        `^\\s+Normal\\s+Recovered\\s+\\S+\\s+${escape(CONTROLLER)}\\s+Recovered after 2 failures over \\d+(ms|s)\\s*$`,
        'm',
      ),
    );
  });

  // kubectl's describers for Namespace and ClusterRole print no Events
  // section at all, whatever exists (k8s.io/kubectl v0.35.4, pkg/describe:
  // NamespaceDescriber and ClusterRoleDescriber never list events; the generic
  // describer and e.g. NodeDescriber do). So for those two, `kubectl events
  // --for` is how a person sees the Events; `kubectl describe node` shows
  // that describe finds Events about cluster-scoped objects in `default`.

  it('an Event about a Namespace is stored in default and shown by kubectl events --for namespace/<name>', async () => {
    const namespace = await scratch.namespaceObject();
    const applied: KubeEvent = { type: 'Normal', reason: 'QuotaApplied', action: 'Apply', note: 'quota small applied' };
    const recorder = scratch.recorder();
    await recorder.publish(namespace, applied);
    await recorder.publish(namespace, applied);

    const events = await scratch.eventsAbout(namespace);
    expect(events.map((event) => [event.metadata!.namespace, event.series?.count])).toEqual([['default', 2]]);
    const described = await cp.kubectl(['describe', 'namespace', scratch.namespace]);
    expect(described.code).toBe(0);
    expect(described.stdout).not.toContain('Events:');
    const table = await kubectlEvents(cp, `namespace/${scratch.namespace}`);
    expect(table).toMatch(eventsRow(applied, `Namespace/${scratch.namespace}`, 2));
  });

  it('an Event about the ClusterRole system:controller:demo is stored in default and shown by kubectl events --for', async () => {
    // The exact name; made unique only if something else holds it.
    const role: KubernetesObject = await scratch.clusterRole('system:controller:demo').catch(async (error: unknown) => {
      if ((error as { code?: number }).code !== 409) throw error;
      return scratch.clusterRole(`system:controller:demo-${Date.now()}`);
    });
    const name = role.metadata!.name!;
    const audited: KubeEvent = { type: 'Warning', reason: 'TooBroad', action: 'Audit', note: 'grants * on *' };
    await scratch.recorder().publish(role, audited);

    const [event, ...others] = await scratch.eventsAbout(role);
    expect(others).toHaveLength(0);
    expect(event.metadata!.namespace).toBe('default');
    expect(event.metadata!.name).toMatch(/^system-controller-demo(-\d+)?\.[0-9a-f]{16}$/);
    expect(event.regarding).toMatchObject({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name });
    const described = await cp.kubectl(['describe', 'clusterrole', name]);
    expect(described.code).toBe(0);
    expect(described.stdout).not.toContain('Events:');
    const table = await kubectlEvents(cp, `clusterrole/${name}`);
    expect(table).toMatch(eventsRow(audited, `ClusterRole/${name}`));
  });

  it('kubectl describe node shows an Event about the (cluster-scoped) Node, stored in default', async () => {
    const node = await scratch.node(`describe-e2e-${Date.now().toString(36)}`);
    const cordoned: KubeEvent = {
      type: 'Warning',
      reason: 'DrainStuck',
      action: 'Drain',
      note: 'pod web-0 has no replica',
    };
    const recorder = scratch.recorder();
    for (let i = 0; i < 3; i++) await recorder.publish(node, cordoned);

    const [event] = await scratch.eventsAbout(node);
    expect(event.metadata!.namespace).toBe('default');
    const section = await describeEvents(cp, ['node', node.metadata!.name!]);
    expect(section).toMatch(row(cordoned, 3));
  });
});
