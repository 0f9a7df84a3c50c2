import { hash } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeEvent } from '../../kube-events.interfaces.js';
import type { TraceContext } from '../../tracing/trace-context.js';

/** One publish on its way through the recorder: what it is about, what happened, and when. */
export interface Occurrence {
  readonly resource: KubernetesObject;
  /** As it will be written (validated, note truncated). */
  readonly event: KubeEvent;
  /** Published by `@PublishesFailures`: a failure series, which a success forgets. */
  readonly failure: boolean;
  /** When it was published, on the monotonic clock. */
  readonly publishedAt: number;
  /** The span it was published in, when OpenTelemetry is installed and one was active; never part of its identity. */
  readonly trace?: TraceContext;
}

/**
 * What a repeat must match, besides its series key, to raise the series'
 * Event rather than create one: type, note, related, annotations and labels. The
 * object's resourceVersion is not part of it, so an object updated between
 * two failures stays in one series. The order of keys is not either: the
 * API server returns `related` in its own field order and annotations and
 * labels sorted, and drops empty fields, so a resumed series compares equal.
 */
function identityOf(event: KubeEvent): string {
  return JSON.stringify([
    event.type,
    event.note ?? null,
    relatedIdentity(event.related),
    mapIdentity(event.annotations),
    mapIdentity(event.labels),
  ]);
}

/**
 * {@link identityOf} as a digest of fixed size (132 bits of SHA-256, 22 characters),
 * which a series keeps for its whole life: a note and annotations of
 * hundreds of kilobytes cost a tracked series no more than short ones.
 */
export function identityDigest(event: KubeEvent): string {
  return hash('sha256', identityOf(event), 'base64url').slice(0, 22);
}

/** The fields of an ObjectReference the API server keeps, in one order. */
const REFERENCE_FIELDS = ['apiVersion', 'kind', 'namespace', 'name', 'uid', 'resourceVersion', 'fieldPath'] as const;

function relatedIdentity(related: KubeEvent['related']): (string | null)[] | null {
  return related ? REFERENCE_FIELDS.map((field) => related[field] || null) : null;
}

/** Annotations or labels, sorted by key; none and empty are the same. */
function mapIdentity(entries: Record<string, string> | undefined): string[][] | null {
  // A key whose value is undefined is not sent (JSON drops it), so it is not part of the identity either.
  const keys = entries
    ? Object.keys(entries)
        .filter((key) => entries[key] !== undefined)
        .sort()
    : [];
  return keys.length ? keys.map((key) => [key, entries![key]]) : null;
}
