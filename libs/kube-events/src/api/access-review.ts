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

/** Where `SelfSubjectReview`s are created: who the request authenticates as (authentication.k8s.io/v1, GA since 1.28). */
export const SELF_REVIEW_PATH = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

/** The review of the recorder's own identity. */
export const SELF_REVIEW_BODY = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

/** The longest user name a message quotes. */
const MAX_USERNAME_CHARS = 256;

/** The user name a `SelfSubjectReview` answered, when it holds one of a reasonable length. */
export function reviewedUsername(review: unknown): string | undefined {
  const status: unknown = (review as { status?: unknown } | null)?.status;
  const userInfo: unknown = (status as { userInfo?: unknown } | null | undefined)?.userInfo;
  const username: unknown = (userInfo as { username?: unknown } | null | undefined)?.username;
  return typeof username === 'string' && username && username.length <= MAX_USERNAME_CHARS ? username : undefined;
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
