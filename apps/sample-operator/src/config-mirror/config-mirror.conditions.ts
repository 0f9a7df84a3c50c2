import { READY_CONDITION } from './config-mirror.constants.js';
import type { ConfigMirror, ConfigMirrorCondition, ConfigMirrorStatus } from './config-mirror.types.js';

/** The outcome of one reconcile, as the status reports it. */
export interface ReconcileOutcome {
  ready: boolean;
  reason: string;
  message: string;
  syncedNamespaces: string[];
}

/**
 * The status a ConfigMirror should have after a reconcile. The Ready
 * condition keeps its `lastTransitionTime` while its `status` is unchanged,
 * as API conventions ask, so an unchanged outcome yields an identical status.
 */
export function desiredStatus(mirror: ConfigMirror, outcome: ReconcileOutcome, now: Date): ConfigMirrorStatus {
  const generation = mirror.metadata.generation;
  const previous = mirror.status?.conditions?.find((condition) => condition.type === READY_CONDITION);
  const status: ConfigMirrorCondition['status'] = outcome.ready ? 'True' : 'False';
  const ready: ConfigMirrorCondition = {
    type: READY_CONDITION,
    status,
    reason: outcome.reason,
    message: outcome.message,
    lastTransitionTime:
      previous?.status === status && previous.lastTransitionTime ? previous.lastTransitionTime : rfc3339Seconds(now),
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  const others = (mirror.status?.conditions ?? []).filter((condition) => condition.type !== READY_CONDITION);
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions: [...others, ready],
    syncedNamespaces: [...outcome.syncedNamespaces].sort(),
  };
}

/** Whether two statuses say the same thing (`lastTransitionTime` included). */
export function sameStatus(a: ConfigMirrorStatus | undefined, b: ConfigMirrorStatus): boolean {
  return JSON.stringify(normalise(a)) === JSON.stringify(normalise(b));
}

function normalise(status: ConfigMirrorStatus | undefined) {
  return {
    observedGeneration: status?.observedGeneration,
    conditions: [...(status?.conditions ?? [])]
      .sort((x, y) => x.type.localeCompare(y.type))
      .map(({ type, status, reason, message, lastTransitionTime, observedGeneration }) => ({
        type,
        status,
        reason,
        message,
        lastTransitionTime,
        observedGeneration,
      })),
    syncedNamespaces: [...(status?.syncedNamespaces ?? [])].sort(),
  };
}

/** `metav1.Time` has second precision. */
function rfc3339Seconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
