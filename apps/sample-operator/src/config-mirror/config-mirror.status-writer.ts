import { Injectable } from '@nestjs/common';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { PublishesConditionChanges } from 'nestjs-kube-events';
import { abortable } from '../kube/abortable-request.js';
import { redact } from '../redaction/redact.js';
import { desiredStatus, sameStatus, type ReconcileOutcome } from './config-mirror.conditions.js';
import {
  CONFIG_MIRROR_GROUP,
  CONFIG_MIRROR_PLURAL,
  CONFIG_MIRROR_VERSION,
  FIELD_MANAGER,
} from './config-mirror.constants.js';
import { configMirrorEvents } from './config-mirror.events.js';
import type { ConfigMirror, ConfigMirrorStatus } from './config-mirror.types.js';

/** Options of {@link ConfigMirrorStatusWriter.write}. */
export interface StatusWriteOptions {
  /** Aborts the write in flight. */
  signal?: AbortSignal;
  /** The time a condition that changes status records. @default now */
  now?: Date;
}

/** What this writer last wrote for one ConfigMirror. */
interface Written {
  /** The resourceVersion of the ConfigMirror as the reconcile read it. */
  readVersion: string | undefined;
  /** The resourceVersion the server gave the ConfigMirror for this write. */
  writtenVersion: string | undefined;
  status: ConfigMirrorStatus;
}

/**
 * Writes a ConfigMirror's `.status` through the status subresource, as a
 * JSON merge patch of `{metadata: {resourceVersion}, status}`: conditional on
 * the resourceVersion the reconcile read, so that the server refuses it with
 * `409 Conflict` when the ConfigMirror changed since (a new leader wrote its
 * status, someone edited the spec). A replica that lost the Lease therefore
 * cannot overwrite the status its successor wrote.
 *
 * The condition's message passes the operator's credential redaction.
 * It writes only when the status would change, which keeps retries from
 * generating watch events. It remembers its own last write: a reconcile that
 * runs before the informer has seen that write (it reads the version the
 * write was based on) compares with, and writes on top of, what it wrote,
 * at the version the server gave it.
 *
 * Each change of the `Ready` condition it writes is published as an Event
 * (`Ready False → True: ConfigMap … is mirrored to …`) once the server took
 * the write, never when it refused it.
 */
@Injectable()
export class ConfigMirrorStatusWriter {
  private readonly written = new Map<string, Written>();

  constructor(private readonly customObjects: CustomObjectsApi) {}

  /**
   * Records `outcome`; resolves with the status written, or `undefined` when it was already current.
   * @throws the client's `ApiException` with code 409 when the ConfigMirror changed since it was read.
   */
  async write(
    mirror: ConfigMirror,
    outcome: ReconcileOutcome,
    options: StatusWriteOptions = {},
  ): Promise<ConfigMirrorStatus | undefined> {
    const uid = mirror.metadata.uid;
    const readVersion = mirror.metadata.resourceVersion;
    const last = uid ? this.written.get(uid) : undefined;
    // The informer has not seen this writer's last write yet: the server holds that one.
    const ownWriteUnseen = last !== undefined && last.readVersion === readVersion;
    const current = ownWriteUnseen ? last.status : mirror.status;
    const precondition = ownWriteUnseen ? last.writtenVersion : readVersion;
    // Tenants read the condition's message: an error's text in it may quote a credential.
    const shown = { ...outcome, message: redact(outcome.message) };
    const status = desiredStatus({ ...mirror, status: current }, shown, options.now ?? new Date());
    if (sameStatus(current, status)) return undefined;
    const written = await this.writeStatus({ ...mirror, status: current }, status, precondition, options.signal);
    if (uid) this.written.set(uid, { readVersion, writtenVersion: written?.metadata?.resourceVersion, status });
    return status;
  }

  /**
   * Writes `status` over `current` (the ConfigMirror as the server holds it), conditional on `precondition`;
   * resolves with the ConfigMirror as the server wrote it. The changes of its `Ready` condition are published then.
   */
  @PublishesConditionChanges({ events: [configMirrorEvents.ready] })
  private async writeStatus(
    current: ConfigMirror,
    status: ConfigMirrorStatus,
    precondition: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Partial<ConfigMirror> | undefined> {
    return (await this.customObjects.patchNamespacedCustomObjectStatus(
      {
        group: CONFIG_MIRROR_GROUP,
        version: CONFIG_MIRROR_VERSION,
        plural: CONFIG_MIRROR_PLURAL,
        namespace: current.metadata.namespace,
        name: current.metadata.name,
        body: { ...(precondition ? { metadata: { resourceVersion: precondition } } : {}), status },
        fieldManager: FIELD_MANAGER,
      },
      abortable(signal, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)),
    )) as Partial<ConfigMirror> | undefined;
  }

  /** Drops what is remembered about a deleted ConfigMirror. */
  forget(mirror: ConfigMirror): void {
    if (mirror.metadata.uid) this.written.delete(mirror.metadata.uid);
  }
}
