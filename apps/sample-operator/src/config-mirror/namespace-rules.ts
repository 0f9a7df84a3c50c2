import type { V1Namespace } from '@kubernetes/client-node';
import { acceptMirrorsFromLabel } from './config-mirror.constants.js';

/**
 * Where a ConfigMirror may read its source ConfigMap.
 * - `own-namespace`: only its own namespace; a `spec.sourceNamespace` naming
 *   another is refused before anything is read, so the refusal says nothing
 *   about what exists there.
 * - `any-namespace`: any namespace the operator can read, which with the
 *   shipped RBAC is every namespace: whoever may create a ConfigMirror may
 *   then copy any ConfigMap of the cluster (`kube-system`'s included).
 */
export type MirrorSources = 'own-namespace' | 'any-namespace';

/**
 * Where a ConfigMirror may write its copies.
 * - `opted-in`: its own namespace, and namespaces that carry the label
 *   `accept-from.mirror.kube-events.dev/<the ConfigMirror's namespace>: "true"`.
 * - `any-namespace`: any namespace the operator may write to; a ConfigMirror
 *   can then take a ConfigMap name in another tenant's namespace before its
 *   owner does.
 */
export type MirrorTargets = 'opted-in' | 'any-namespace';

/** The values {@link MirrorSources} takes. */
export const MIRROR_SOURCES: readonly MirrorSources[] = ['own-namespace', 'any-namespace'];
/** The values {@link MirrorTargets} takes. */
export const MIRROR_TARGETS: readonly MirrorTargets[] = ['opted-in', 'any-namespace'];

/** The namespace rules the reconciler applies. */
export interface NamespaceRules {
  sources: MirrorSources;
  targets: MirrorTargets;
}

/** Whether a ConfigMirror of namespace `from` may read its source in `sourceNamespace`. */
export function mayReadSource(rules: NamespaceRules, from: string, sourceNamespace: string): boolean {
  return rules.sources === 'any-namespace' || sourceNamespace === from;
}

/**
 * Whether `target` (the Namespace as read from the server) accepts copies
 * from ConfigMirrors of namespace `from`: only the label's value `"true"`
 * opts in, so `"false"` can say no explicitly.
 */
export function acceptsMirrorsFrom(target: V1Namespace, from: string): boolean {
  return target.metadata?.labels?.[acceptMirrorsFromLabel(from)] === 'true';
}
