import { RECONCILE_ACTION, RECONCILE_FAILED_REASON, defineEventCatalog, describeError } from 'nestjs-kube-events';
import * as messages from './config-mirror.messages.js';

/**
 * Every Event the operator publishes about a ConfigMirror, declared once:
 * the reconciler publishes from it, and `docs/events.md` is rendered from it
 * (`npm run events:docs -w sample-operator`; CI fails when that page is stale).
 */
export const configMirrorEvents = defineEventCatalog({
  reconcileFailed: {
    reason: RECONCILE_FAILED_REASON,
    type: 'Warning',
    action: RECONCILE_ACTION,
    when:
      'a reconcile fails: the source ConfigMap is missing or outside the mirror’s namespace, a target namespace ' +
      'is missing or has not opted in, a target ConfigMap belongs to someone else, or an API request failed. ' +
      'Repeats count on one Event while the retries fail; a success starts the next failure afresh.',
    whatToDo:
      'Read the note: it names the object and what is wrong with it. The mirror’s `Ready` condition says the same. ' +
      'Fix that object (create the source, label the namespace, remove the foreign ConfigMap); the next retry picks it up.',
    note: (error: unknown) => describeError(error),
  },
  synced: {
    reason: 'Synced',
    type: 'Normal',
    action: 'Sync',
    when: 'a reconcile created or updated copies of the source ConfigMap',
    note: (source: string, namespaces: readonly string[]) => messages.copied(source, namespaces),
  },
});
