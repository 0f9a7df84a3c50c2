// Condition changes on a real API server: a status write through the status subresource of a CRD (the sample
// operator's ConfigMirror), made by a method decorated with @PublishesConditionChanges, and `kubectl describe`
// showing the transition Event under the object; a write the server refuses publishes nothing.
import 'reflect-metadata';
import { Inject, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  ApiException,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { KubeEventsModule, PublishesConditionChanges, type StatusCondition } from 'nestjs-kube-events';
import type { ConfigMirror } from '../../apps/sample-operator/src/config-mirror/config-mirror.types.js';
import {
  CONFIG_MIRROR_GROUP,
  CONFIG_MIRROR_PLURAL,
  CONFIG_MIRROR_VERSION,
} from '../../apps/sample-operator/src/config-mirror/config-mirror.constants.js';
import { type ControlPlane, sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { ConfigMirrors } from './support/config-mirrors.js';
import { installConfigMirrorCrd, removeConfigMirrorCrd } from './support/operator-fixtures.js';
import { CONTROLLER, Scratch } from './support/library-fixtures.js';

const MIRRORS = { group: CONFIG_MIRROR_GROUP, version: CONFIG_MIRROR_VERSION, plural: CONFIG_MIRROR_PLURAL };
const ready = (status: 'True' | 'False', reason: string, message: string): StatusCondition => ({
  type: 'Ready',
  status,
  reason,
  message,
  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
});

/** Writes a ConfigMirror's status, conditional on the resourceVersion it read, and resolves with the mirror as written. */
const ADMIN = Symbol('admin KubeConfig');

@Injectable()
class MirrorStatus {
  private readonly api: CustomObjectsApi;
  constructor(@Inject(ADMIN) admin: KubeConfig) {
    this.api = admin.makeApiClient(CustomObjectsApi);
  }

  @PublishesConditionChanges()
  async write(mirror: ConfigMirror, conditions: StatusCondition[]): Promise<ConfigMirror> {
    return (await this.api.patchNamespacedCustomObjectStatus(
      {
        ...MIRRORS,
        namespace: mirror.metadata.namespace,
        name: mirror.metadata.name,
        body: { metadata: { resourceVersion: mirror.metadata.resourceVersion }, status: { conditions } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as ConfigMirror;
  }
}

describe('condition changes on a real API server', () => {
  let cp: ControlPlane;
  let scratch: Scratch;
  let installedCrd = false;

  beforeAll(async () => {
    cp = sharedControlPlane();
    installedCrd = await installConfigMirrorCrd(cp);
  });
  afterAll(async () => {
    await removeConfigMirrorCrd(cp, installedCrd);
  });
  beforeEach(async () => {
    scratch = await Scratch.create(cp.kubeConfig(), 'conditions-e2e');
  });
  afterEach(async () => {
    await scratch?.cleanup();
  });

  it('kubectl describe shows the Events of Ready going False then True, and none for a refused status write', async () => {
    const mirrors = new ConfigMirrors(scratch.admin);
    const created = await mirrors.create(scratch.namespace, 'app-config', {
      sourceName: 'app-config',
      targetNamespaces: [scratch.namespace],
    });
    const app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: CONTROLLER }, kubeConfig: scratch.admin })],
      providers: [MirrorStatus, { provide: ADMIN, useValue: scratch.admin }],
    }).compile();
    await app.init();
    try {
      const status = app.get(MirrorStatus);
      const missing = ready('False', 'SourceNotFound', 'source ConfigMap app-config not found');
      const failing = await status.write(created, [missing]);
      const synced = await status.write(failing, [ready('True', 'Synced', 'copied 1 key')]);
      expect(synced.status?.conditions?.[0]).toMatchObject({ status: 'True', reason: 'Synced' });

      // Based on a resourceVersion the server moved past: 409 Conflict, and no Event claims Ready went False.
      const stale = status.write(failing, [ready('False', 'TargetConflict', 'a copy belongs to someone else')]);
      await expect(stale).rejects.toBeInstanceOf(ApiException);
      await expect(stale).rejects.toMatchObject({ code: 409 });
    } finally {
      await app.close();
    }

    const { stdout, stderr, code } = await cp.kubectl([
      'describe',
      'configmirror',
      'app-config',
      '-n',
      scratch.namespace,
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const events = stdout.slice(stdout.indexOf('Events:'));
    expect(events).toMatch(/^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n/);
    const row = (type: string, reason: string, message: string) =>
      new RegExp(`^\\s+${type}\\s+${reason}\\s+\\S+\\s+${CONTROLLER.replace(/\./g, '\\.')}\\s+${message}\\s*$`, 'm');
    expect(events).toMatch(row('Warning', 'SourceNotFound', 'Ready → False: source ConfigMap app-config not found'));
    expect(events).toMatch(row('Normal', 'Synced', 'Ready False → True: copied 1 key'));
    expect(events).not.toContain('TargetConflict');
    expect((await scratch.eventsAbout(created)).map((event) => event.action)).toEqual(['UpdateStatus', 'UpdateStatus']);
  });
});
