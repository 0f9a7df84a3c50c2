/**
 * The HTTP status of a failed API call, for the decisions a controller makes
 * on it (a 404 means gone, a 409 means changed since read). What the error
 * says to a person is `describeError`'s, from nestjs-kube-events.
 */

/** The HTTP status of a failed API call (client-node's `ApiException.code`), if it was one. */
export function apiStatusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

export function isNotFound(error: unknown): boolean {
  return apiStatusCode(error) === 404;
}

export function isConflict(error: unknown): boolean {
  return apiStatusCode(error) === 409;
}
