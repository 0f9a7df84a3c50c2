import { Injectable } from '@nestjs/common';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { desiredStatus, sameStatus, type ReconcileOutcome } from './config-mirror.conditions.js';
import {
  CONFIG_MIRROR_GROUP,
  CONFIG_MIRROR_PLURAL,
  CONFIG_MIRROR_VERSION,
  FIELD_MANAGER,
} from './config-mirror.constants.js';
import type { ConfigMirror, ConfigMirrorStatus } from './config-mirror.types.js';

/**
 * Writes a ConfigMirror's `.status` through the status subresource (a JSON
 * merge patch of `{status}`, so it never conflicts with spec edits), and only
 * when it would change: an unchanged status is not written, which keeps
 * retries from generating watch events. It remembers what it wrote last, so
 * a reconcile that runs before the informer has seen that write compares with
 * the status the server holds, not with a stale copy.
 */
@Injectable()
export class ConfigMirrorStatusWriter {
  private readonly written = new Map<string, ConfigMirrorStatus>();

  constructor(private readonly customObjects: CustomObjectsApi) {}

  /** Records `outcome`; resolves with the status written, or `undefined` when it was already current. */
  async write(
    mirror: ConfigMirror,
    outcome: ReconcileOutcome,
    now = new Date(),
  ): Promise<ConfigMirrorStatus | undefined> {
    const uid = mirror.metadata.uid;
    const current = (uid && this.written.get(uid)) || mirror.status;
    const status = desiredStatus({ ...mirror, status: current }, outcome, now);
    if (sameStatus(current, status)) return undefined;
    await this.customObjects.patchNamespacedCustomObjectStatus(
      {
        group: CONFIG_MIRROR_GROUP,
        version: CONFIG_MIRROR_VERSION,
        plural: CONFIG_MIRROR_PLURAL,
        namespace: mirror.metadata.namespace,
        name: mirror.metadata.name,
        body: { status },
        fieldManager: FIELD_MANAGER,
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    if (uid) this.written.set(uid, status);
    return status;
  }

  /** Drops what is remembered about a deleted ConfigMirror. */
  forget(mirror: ConfigMirror): void {
    if (mirror.metadata.uid) this.written.delete(mirror.metadata.uid);
  }
}
