/** The API group of the Events a recorder writes. */
const EVENTS_GROUP = 'events.k8s.io';

/** The verbs a recorder uses on Events: `list` only with `resumeSeries`. */
export type EventVerb = 'create' | 'get' | 'patch' | 'list';

/** Where `SelfSubjectAccessReview`s are created: every authenticated identity may, with no RBAC of its own. */
export const ACCESS_REVIEW_PATH = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

/** The review of one verb on Events, in `namespace`, or in every namespace when it is undefined. */
export function accessReviewBody(verb: EventVerb, namespace: string | undefined): unknown {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { group: EVENTS_GROUP, resource: 'events', verb, namespace } },
  };
}

/**
 * Whether the review's answer allows the verb. An answer without
 * `status.allowed` says nothing: it throws, and the review counts as failed
 * (unknown), never as a denial.
 */
export function isAllowed(review: unknown): boolean {
  const status: unknown = (review as { status?: unknown } | null)?.status;
  const allowed: unknown = (status as { allowed?: unknown } | null | undefined)?.allowed;
  if (typeof allowed !== 'boolean') throw new Error('the review came back without status.allowed');
  return allowed;
}
