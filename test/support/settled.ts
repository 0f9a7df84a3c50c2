// What became of a publish, as a value a test can compare: 'resolved', or the PublishError it rejected with.
import { PublishError } from 'nestjs-kube-events';

/** What became of one publish: it resolved, or the error it rejected with. */
export type Settled = 'resolved' | PublishError;

/** Waits for `publish` and says how it settled; a rejection that is not a PublishError becomes one that says so. */
export const settle = (publish: Promise<void>): Promise<Settled> =>
  publish.then(
    () => 'resolved' as const,
    (error: unknown) =>
      error instanceof PublishError ? error : new PublishError(`not a PublishError: ${String(error)}`),
  );

/** What `publish` rejected with, or `undefined` when it resolved: for a test that expects either. */
export const rejectionOrNothing = (publish: Promise<void>): Promise<unknown> =>
  publish.then(
    () => undefined,
    (error: unknown) => error,
  );
