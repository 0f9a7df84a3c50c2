import { Inject, Injectable, Logger } from '@nestjs/common';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { EventRecorder, PublishesFailures, describeError } from 'nestjs-kube-events';
import { abortable } from '../kube/abortable-request.js';
import { apiStatusCode, isConflict, isNotFound } from '../kube/api-status-code.js';
import { OPERATOR_OPTIONS, type ResolvedOperatorOptions } from '../operator.options.js';
import type { ReconcileOutcome } from './config-mirror.conditions.js';
import {
  CONFIG_MIRROR_API_VERSION,
  CONFIG_MIRROR_KIND,
  COPIES_CLUSTER_ROLE,
  FIELD_MANAGER,
  MIRRORS_CLUSTER_ROLE,
} from './config-mirror.constants.js';
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
import { configMirrorEvents } from './config-mirror.events.js';
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
  /**
   * Why the reconcile stopped short, when it did: `cancelled`, its signal
   * was aborted (the Lease was lost) and it wrote nothing more; or
   * `status-conflict`, the copies are in sync but the status write was
   * refused (409) because the ConfigMirror changed since it was read, so it
   * should run again on what the server holds now.
   */
  incomplete?: 'cancelled' | 'status-conflict';
}

type TargetOutcome = 'created' | 'updated' | 'unchanged';

interface SyncResult extends ReconcileResult {
  failures: ConfigMirrorError[];
}

const SYNCED_REASON = configMirrorEvents.synced.entry.reason;

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
   *
   * `signal` cancels it: every API call in flight is aborted, nothing more
   * is written (no copy, no status, no Event, not even the failure's
   * Warning), and it resolves with `incomplete: 'cancelled'`. The controller
   * aborts it when this replica loses the Lease, as another replica may be
   * reconciling the same mirror by then.
   * @throws ConfigMirrorError when the mirror cannot converge; the copies that
   *   could be written are written first.
   */
  @PublishesFailures({
    event: configMirrorEvents.reconcileFailed,
    apiVersion: CONFIG_MIRROR_API_VERSION,
    kind: CONFIG_MIRROR_KIND,
    traceLink: true,
  })
  async reconcile(mirror: ConfigMirror, signal?: AbortSignal): Promise<ReconcileResult> {
    try {
      return await this.converge(mirror, signal);
    } catch (error) {
      if (signal?.aborted) return cancelled(mirror);
      throw error;
    }
  }

  private async converge(mirror: ConfigMirror, signal: AbortSignal | undefined): Promise<ReconcileResult> {
    let result: SyncResult;
    try {
      result = await this.sync(mirror, signal);
    } catch (error) {
      const failure = toConfigMirrorError(error);
      await this.recordFailure(mirror, failure, [], signal);
      throw failure;
    }
    const written = [...result.created, ...result.updated];
    if (written.length > 0) {
      await this.publishSynced(mirror, result.source, written, signal);
    }
    const current = [...written, ...result.unchanged];
    if (result.failures.length > 0) {
      const failure = result.failures.length === 1 ? result.failures[0] : new TargetsFailedError(result.failures);
      await this.recordFailure(mirror, failure, current, signal);
      throw failure;
    }
    const { failures: _failures, ...outcome } = result;
    try {
      await this.statusWriter.write(
        mirror,
        {
          ready: true,
          reason: SYNCED_REASON,
          message: messages.inSync(result.source, current),
          syncedNamespaces: current,
        },
        { signal },
      );
    } catch (error) {
      if (isConflict(error)) return { ...outcome, incomplete: 'status-conflict' };
      if (!isNotFound(error)) throw statusWriteFailed(mirror, error);
    }
    return outcome;
  }

  private async sync(mirror: ConfigMirror, signal: AbortSignal | undefined): Promise<SyncResult> {
    const spec = mirror.spec ?? ({} as ConfigMirror['spec']);
    const own = mirror.metadata.namespace;
    const sourceNamespace = spec.sourceNamespace || own;
    const source = `${sourceNamespace}/${spec.sourceName}`;
    const targets = [...new Set(spec.targetNamespaces ?? [])];
    if (!spec.sourceName) throw new InvalidSpecError('spec.sourceName is empty: nothing to copy');
    if (targets.length === 0) throw new InvalidSpecError(messages.noTargets());
    if (!mayReadSource(this.rules, own, sourceNamespace)) throw new SourceNotAllowedError(sourceNamespace, own);

    const sourceMap = await this.readSource(sourceNamespace, spec.sourceName, source, signal);
    const owner = `${own}/${mirror.metadata.name}`;
    const result: SyncResult = { source, created: [], updated: [], unchanged: [], failures: [] };
    const missingNamespaces: string[] = [];
    const refusedNamespaces: string[] = [];

    const outcomes = await Promise.allSettled(
      targets.map((namespace) =>
        namespace === sourceNamespace
          ? Promise.reject(new InvalidSpecError(messages.targetIsSource(source)))
          : this.syncTarget(mirror, owner, sourceMap, namespace, signal),
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

  private async readSource(
    namespace: string,
    name: string,
    source: string,
    signal: AbortSignal | undefined,
  ): Promise<V1ConfigMap> {
    try {
      return await this.core.readNamespacedConfigMap({ namespace, name }, abortable(signal));
    } catch (error) {
      if (isNotFound(error)) throw new SourceNotFoundError(source);
      throw apiFailure('read', `source ConfigMap ${source}`, error, { namespace, role: MIRRORS_CLUSTER_ROLE });
    }
  }

  private async syncTarget(
    mirror: ConfigMirror,
    owner: string,
    source: V1ConfigMap,
    namespace: string,
    signal: AbortSignal | undefined,
  ): Promise<TargetOutcome> {
    const name = source.metadata!.name!;
    const target = `${namespace}/${name}`;
    const desired = desiredCopy(mirror, source, namespace);
    await this.requireAcceptance(namespace, mirror.metadata.namespace, signal);
    let existing: V1ConfigMap | undefined;
    try {
      existing = await this.core.readNamespacedConfigMap({ namespace, name }, abortable(signal));
    } catch (error) {
      if (!isNotFound(error))
        throw apiFailure('read', `ConfigMap ${target}`, error, { namespace, role: COPIES_CLUSTER_ROLE });
    }

    if (!existing) {
      if (this.rules.targets === 'any-namespace') await this.requireNamespace(namespace, signal);
      try {
        await this.core.createNamespacedConfigMap(
          { namespace, body: desired, fieldManager: FIELD_MANAGER },
          abortable(signal),
        );
      } catch (error) {
        throw apiFailure('create', `ConfigMap ${target}`, error, { namespace, role: COPIES_CLUSTER_ROLE });
      }
      return 'created';
    }

    if (copyOwner(existing) !== owner) throw new TargetConflictError(target, owner);
    if (copyIsCurrent(existing, desired)) return 'unchanged';
    try {
      await this.core.replaceNamespacedConfigMap(
        { namespace, name, body: updatedCopy(existing, desired), fieldManager: FIELD_MANAGER },
        abortable(signal),
      );
    } catch (error) {
      throw apiFailure('update', `ConfigMap ${target}`, error, { namespace, role: COPIES_CLUSTER_ROLE });
    }
    return 'updated';
  }

  /**
   * With opted-in targets, refuses a namespace other than the mirror's own
   * unless it carries the label that accepts copies from `from`. A namespace
   * that does not exist is refused alike: nothing of the target is read
   * before it has opted in.
   */
  private async requireAcceptance(namespace: string, from: string, signal: AbortSignal | undefined): Promise<void> {
    if (this.rules.targets === 'any-namespace' || namespace === from) return;
    try {
      const target = await this.core.readNamespace({ name: namespace }, abortable(signal));
      if (acceptsMirrorsFrom(target, from)) return;
    } catch (error) {
      if (!isNotFound(error)) throw apiFailure('read', `namespace ${namespace}`, error);
    }
    throw new TargetNotAllowedError([namespace], from);
  }

  private async requireNamespace(namespace: string, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.core.readNamespace({ name: namespace }, abortable(signal));
    } catch (error) {
      if (isNotFound(error)) throw new TargetNamespaceNotFoundError([namespace]);
      throw apiFailure('read', `namespace ${namespace}`, error);
    }
  }

  private async recordFailure(
    mirror: ConfigMirror,
    failure: ConfigMirrorError,
    synced: string[],
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (signal?.aborted) return;
    const outcome: ReconcileOutcome = {
      ready: false,
      reason: failure.reason,
      message: failure.message,
      syncedNamespaces: synced,
    };
    try {
      await this.statusWriter.write(mirror, outcome, { signal });
    } catch (error) {
      if (!isNotFound(error)) {
        this.logger.warn(`${statusWriteFailed(mirror, error).message} (after: ${failure.message})`);
      }
    }
  }

  private async publishSynced(
    mirror: ConfigMirror,
    source: string,
    written: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (signal?.aborted) return;
    try {
      await this.recorder.publish(mirror, configMirrorEvents.synced(source, written));
    } catch (error) {
      this.logger.warn(
        `could not publish the ${SYNCED_REASON} Event of ConfigMirror ${mirror.metadata.namespace}/${mirror.metadata.name}: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  }
}

/** What a cancelled reconcile resolves with: nothing done that it reports. */
function cancelled(mirror: ConfigMirror): ReconcileResult {
  const spec = mirror.spec ?? ({} as ConfigMirror['spec']);
  const source = `${spec.sourceNamespace || mirror.metadata.namespace}/${spec.sourceName}`;
  return { source, created: [], updated: [], unchanged: [], incomplete: 'cancelled' };
}

/** Where a 403 comes from when the API server confines the operator: the namespace, and the ClusterRole it must bind. */
interface OptIn {
  namespace: string;
  role: string;
}

function apiFailure(verb: string, what: string, error: unknown, optIn?: OptIn): ApiRequestError {
  const code = apiStatusCode(error);
  const detail = describeError(error);
  const message =
    code === 403 && optIn
      ? messages.notOptedIn(messages.apiRequestFailed(verb, what, detail), optIn.namespace, optIn.role)
      : messages.apiRequestFailed(verb, what, detail);
  return new ApiRequestError(code, message, { cause: error });
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
