/**
 * Reading the errors `@kubernetes/client-node` 2.x throws: an `ApiException`
 * with `code` (the HTTP status) and `body` (the server's `Status` as JSON
 * text). Its own `message` packs status, body and headers into one string,
 * which is no text for a person.
 */

/** The HTTP status of a failed API call, if it was one. */
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

/** The server's own explanation (`Status.message`), else the error's first line. */
export function apiErrorMessage(error: unknown): string {
  const body = (error as { body?: unknown } | null)?.body;
  if (typeof body === 'string') {
    try {
      const status = JSON.parse(body) as { message?: unknown };
      if (typeof status.message === 'string' && status.message) return status.message;
    } catch {
      // not JSON: fall through to the error's own text
    }
  } else if (body && typeof (body as { message?: unknown }).message === 'string') {
    return (body as { message: string }).message;
  }
  const code = apiStatusCode(error);
  if (error instanceof Error) {
    const firstLine = error.message.split('\n')[0];
    if (code !== undefined && firstLine.startsWith('HTTP-Code')) return `HTTP ${code}`;
    const cause = error.cause instanceof Error ? error.cause.message : undefined;
    return cause ? `${firstLine}: ${cause}` : firstLine;
  }
  return String(error);
}
