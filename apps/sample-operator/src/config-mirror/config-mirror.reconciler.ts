import { Inject, Injectable, Logger } from '@nestjs/common';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { EventRecorder, PublishesFailures } from 'nestjs-kube-events';
import { apiErrorMessage, apiStatusCode, isNotFound } from '../kube/kube-api-errors.js';
import { OPERATOR_OPTIONS, type ResolvedOperatorOptions } from '../operator.options.js';
import type { ReconcileOutcome } from './config-mirror.conditions.js';
import { CONFIG_MIRROR_API_VERSION, CONFIG_MIRROR_KIND, FIELD_MANAGER } from './config-mirror.constants.js';
import {
  ApiRequestError,
  ConfigMirrorError,
  InvalidSpecError,
  SourceNotAllowedError,
  SourceNotFoundError,
  TargetConflictError,
  TargetNamespaceNotFoundError,
  TargetNotAllowedError,
  TargetsFailedError,
} from './config-mirror.errors.js';
import * as messages from './config-mirror.messages.js';
import { ConfigMirrorStatusWriter } from './config-mirror.status-writer.js';
import type { ConfigMirror } from './config-mirror.types.js';
import { copyIsCurrent, copyOwner, desiredCopy, updatedCopy } from './mirrored-config-map.js';
import { acceptsMirrorsFrom, mayReadSource, type NamespaceRules } from './namespace-rules.js';

/** What a successful reconcile did, per target namespace. */
export interface ReconcileResult {
  /** `namespace/name` of the source ConfigMap. */
  source: string;
  created: string[];
  updated: string[];
  unchanged: string[];
}

type TargetOutcome = 'created' | 'updated' | 'unchanged';

interface SyncResult extends ReconcileResult {
  failures: ConfigMirrorError[];
}

/** Reason of the Normal Event published when a reconcile wrote copies. */
export const SYNCED_REASON = 'Synced';
/** Action of the Normal Event published when a reconcile wrote copies. */
export const SYNC_ACTION = 'Sync';

/**
 * Brings one ConfigMirror to its desired state: the source ConfigMap copied,
 * unchanged, into every target namespace; then records the outcome in its
 * status. A failure is thrown as a {@link ConfigMirrorError} whose message a
 * person understands; `@PublishesFailures` turns it into a Warning
 * `ReconcileFailed` Event on the ConfigMirror, and the work queue retries it.
 * A success that wrote something publishes a Normal `Synced` Event saying what.
 *
 * It reaches only where its {@link NamespaceRules} allow (by default: the
 * source in the mirror's own namespace, copies in its own namespace and in
 * namespaces labelled to accept them); anything else is refused with a
 * Warning Event, without reading what the mirror asked for.
 */
@Injectable()
export class ConfigMirrorReconciler {
  private readonly logger = new Logger(ConfigMirrorReconciler.name);
  private readonly rules: NamespaceRules;

  constructor(
    private readonly core: CoreV1Api,
    private readonly statusWriter: ConfigMirrorStatusWriter,
    private readonly recorder: EventRecorder,
    @Inject(OPERATOR_OPTIONS) options: Pick<ResolvedOperatorOptions, 'mirrorSources' | 'mirrorTargets'>,
  ) {
    this.rules = { sources: options.mirrorSources, targets: options.mirrorTargets };
  }

  /**
   * Reconciles `mirror` (the object as the informer last saw it).
   * @throws ConfigMirrorError when the mirror cannot converge; the copies that
   *   could be written are written first.
   */
  @PublishesFailures({ apiVersion: CONFIG_MIRROR_API_VERSION, kind: CONFIG_MIRROR_KIND })
  async reconcile(mirror: ConfigMirror): Promise<ReconcileResult> {
    let result: SyncResult;
    try {
      result = await this.sync(mirror);
    } catch (error) {
      const failure = toConfigMirrorError(error);
      await this.recordFailure(mirror, failure, []);
      throw failure;
    }
    const written = [...result.created, ...result.updated];
    if (written.length > 0) {
      await this.publishSynced(mirror, messages.copied(result.source, written));
    }
    const current = [...written, ...result.unchanged];
    if (result.failures.length > 0) {
      const failure = result.failures.length === 1 ? result.failures[0] : new TargetsFailedError(result.failures);
      await this.recordFailure(mirror, failure, current);
      throw failure;
    }
    try {
      await this.statusWriter.write(mirror, {
        ready: true,
        reason: SYNCED_REASON,
        message: messages.inSync(result.source, current),
        syncedNamespaces: current,
      });
    } catch (error) {
      if (!isNotFound(error)) throw statusWriteFailed(mirror, error);
    }
    const { failures: _failures, ...outcome } = result;
    return outcome;
  }

  private async sync(mirror: ConfigMirror): Promise<SyncResult> {
    const spec = mirror.spec ?? ({} as ConfigMirror['spec']);
    const own = mirror.metadata.namespace;
    const sourceNamespace = spec.sourceNamespace || own;
    const source = `${sourceNamespace}/${spec.sourceName}`;
    const targets = [...new Set(spec.targetNamespaces ?? [])];
    if (!spec.sourceName) throw new InvalidSpecError('spec.sourceName is empty: nothing to copy');
    if (targets.length === 0) throw new InvalidSpecError(messages.noTargets());
    if (!mayReadSource(this.rules, own, sourceNamespace)) throw new SourceNotAllowedError(sourceNamespace, own);

    const sourceMap = await this.readSource(sourceNamespace, spec.sourceName, source);
    const owner = `${own}/${mirror.metadata.name}`;
    const result: SyncResult = { source, created: [], updated: [], unchanged: [], failures: [] };
    const missingNamespaces: string[] = [];
    const refusedNamespaces: string[] = [];

    const outcomes = await Promise.allSettled(
      targets.map((namespace) =>
        namespace === sourceNamespace
          ? Promise.reject(new InvalidSpecError(messages.targetIsSource(source)))
          : this.syncTarget(mirror, owner, sourceMap, namespace),
      ),
    );
    outcomes.forEach((outcome, index) => {
      const namespace = targets[index];
      if (outcome.status === 'fulfilled') {
        result[outcome.value].push(namespace);
      } else if (outcome.reason instanceof TargetNamespaceNotFoundError) {
        missingNamespaces.push(...outcome.reason.namespaces);
      } else if (outcome.reason instanceof TargetNotAllowedError) {
        refusedNamespaces.push(...outcome.reason.namespaces);
      } else {
        result.failures.push(toConfigMirrorError(outcome.reason));
      }
    });
    if (missingNamespaces.length > 0) {
      result.failures.unshift(new TargetNamespaceNotFoundError(missingNamespaces));
    }
    if (refusedNamespaces.length > 0) {
      result.failures.unshift(new TargetNotAllowedError(refusedNamespaces, own));
    }
    return result;
  }

  private async readSource(namespace: string, name: string, source: string): Promise<V1ConfigMap> {
    try {
      return await this.core.readNamespacedConfigMap({ namespace, name });
    } catch (error) {
      if (isNotFound(error)) throw new SourceNotFoundError(source);
      throw apiFailure('read', `source ConfigMap ${source}`, error);
    }
  }

  private async syncTarget(
    mirror: ConfigMirror,
    owner: string,
    source: V1ConfigMap,
    namespace: string,
  ): Promise<TargetOutcome> {
    const name = source.metadata!.name!;
    const target = `${namespace}/${name}`;
    const desired = desiredCopy(mirror, source, namespace);
    await this.requireAcceptance(namespace, mirror.metadata.namespace);
    let existing: V1ConfigMap | undefined;
    try {
      existing = await this.core.readNamespacedConfigMap({ namespace, name });
    } catch (error) {
      if (!isNotFound(error)) throw apiFailure('read', `ConfigMap ${target}`, error);
    }

    if (!existing) {
      if (this.rules.targets === 'any-namespace') await this.requireNamespace(namespace);
      try {
        await this.core.createNamespacedConfigMap({ namespace, body: desired, fieldManager: FIELD_MANAGER });
      } catch (error) {
        throw apiFailure('create', `ConfigMap ${target}`, error);
      }
      return 'created';
    }

    if (copyOwner(existing) !== owner) throw new TargetConflictError(target, owner);
    if (copyIsCurrent(existing, desired)) return 'unchanged';
    try {
      await this.core.replaceNamespacedConfigMap({
        namespace,
        name,
        body: updatedCopy(existing, desired),
        fieldManager: FIELD_MANAGER,
      });
    } catch (error) {
      throw apiFailure('update', `ConfigMap ${target}`, error);
    }
    return 'updated';
  }

  /**
   * With opted-in targets, refuses a namespace other than the mirror's own
   * unless it carries the label that accepts copies from `from`. A namespace
   * that does not exist is refused alike: nothing of the target is read
   * before it has opted in.
   */
  private async requireAcceptance(namespace: string, from: string): Promise<void> {
    if (this.rules.targets === 'any-namespace' || namespace === from) return;
    try {
      const target = await this.core.readNamespace({ name: namespace });
      if (acceptsMirrorsFrom(target, from)) return;
    } catch (error) {
      if (!isNotFound(error)) throw apiFailure('read', `namespace ${namespace}`, error);
    }
    throw new TargetNotAllowedError([namespace], from);
  }

  private async requireNamespace(namespace: string): Promise<void> {
    try {
      await this.core.readNamespace({ name: namespace });
    } catch (error) {
      if (isNotFound(error)) throw new TargetNamespaceNotFoundError([namespace]);
      throw apiFailure('read', `namespace ${namespace}`, error);
    }
  }

  private async recordFailure(mirror: ConfigMirror, failure: ConfigMirrorError, synced: string[]): Promise<void> {
    const outcome: ReconcileOutcome = {
      ready: false,
      reason: failure.reason,
      message: failure.message,
      syncedNamespaces: synced,
    };
    try {
      await this.statusWriter.write(mirror, outcome);
    } catch (error) {
      if (!isNotFound(error)) {
        this.logger.warn(`${statusWriteFailed(mirror, error).message} (after: ${failure.message})`);
      }
    }
  }

  private async publishSynced(mirror: ConfigMirror, note: string): Promise<void> {
    try {
      await this.recorder.publish(mirror, { type: 'Normal', reason: SYNCED_REASON, action: SYNC_ACTION, note });
    } catch (error) {
      this.logger.warn(
        `could not publish the ${SYNCED_REASON} Event of ConfigMirror ${mirror.metadata.namespace}/${mirror.metadata.name}: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  }
}

function apiFailure(verb: string, what: string, error: unknown): ApiRequestError {
  return new ApiRequestError(apiStatusCode(error), messages.apiRequestFailed(verb, what, apiErrorMessage(error)), {
    cause: error,
  });
}

function statusWriteFailed(mirror: ConfigMirror, error: unknown): ApiRequestError {
  return apiFailure('update', `the status of ConfigMirror ${mirror.metadata.namespace}/${mirror.metadata.name}`, error);
}

function toConfigMirrorError(error: unknown): ConfigMirrorError {
  if (error instanceof ConfigMirrorError) return error;
  if (apiStatusCode(error) !== undefined) return apiFailure('reconcile', 'the ConfigMirror', error);
  return new ConfigMirrorError('ReconcileError', error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}
