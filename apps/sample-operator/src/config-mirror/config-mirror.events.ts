import { RECONCILE_ACTION, RECONCILE_FAILED_REASON, defineEventCatalog, describeError } from 'nestjs-kube-events';
import { READY_CONDITION } from './config-mirror.constants.js';
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
  ready: {
    condition: READY_CONDITION,
    reasons: [
      'Synced',
      'SourceNotFound',
      'SourceNotAllowed',
      'TargetNamespaceNotFound',
      'TargetNotAllowed',
      'TargetConflict',
      'InvalidSpec',
      'Forbidden',
      'ApiError',
      'ReconcileError',
    ],
    when:
      'the mirror’s `Ready` condition changes status or reason, once its status write succeeded: ' +
      '`Ready False → True` when every copy is in sync, `Ready True → False` (or a new reason while False) when a ' +
      'reconcile fails. The note carries the condition’s message. Each repeat of the same change counts on one Event.',
    whatToDo:
      'For a Warning, read the note (the condition’s message) and fix what it names; `ReconcileFailed` counts the retries.',
  },
  synced: {
    reason: 'Synced',
    type: 'Normal',
    action: 'Sync',
    when: 'a reconcile created or updated copies of the source ConfigMap',
    note: (source: string, namespaces: readonly string[]) => messages.copied(source, namespaces),
  },
});
