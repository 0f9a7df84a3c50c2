/** Base of every error a publish rejects with. */
export class PublishError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The publish did not settle within the recorder's timeout; its request was aborted. */
export class PublishTimeoutError extends PublishError {
  constructor(readonly timeoutMs: number) {
    super(`Publishing the Event did not finish within ${timeoutMs} ms; the request was aborted.`);
  }
}

/** The API server refused the Event, or could not be reached. */
export class PublishApiError extends PublishError {
  constructor(
    message: string,
    /** HTTP status code, absent when no answer came (connection refused, say). */
    readonly statusCode?: number,
    /** The `reason` of the server's Status, for instance `Forbidden` or `Invalid`. */
    readonly reason?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The Event was refused before any request: it names the field at fault. */
export class InvalidEventError extends PublishError {
  constructor(
    /** The offending field, for instance `reason` or `resource.kind`. */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
