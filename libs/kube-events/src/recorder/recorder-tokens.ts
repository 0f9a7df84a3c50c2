import { EventRecorder } from './event-recorder.js';

const NAMED_RECORDER_PREFIX = 'KUBE_EVENTS:recorder:';

/**
 * The injection token of a recorder: the `EventRecorder` class for the
 * default one, a namespaced string for one registered with a `name`.
 */
export function getEventRecorderToken(name?: string): string | typeof EventRecorder {
  return name === undefined ? EventRecorder : `${NAMED_RECORDER_PREFIX}${name}`;
}

/** The recorder name a token stands for: `null` for the default, `undefined` when it is no recorder token. */
export function recorderNameOf(token: unknown): string | null | undefined {
  if (token === EventRecorder) return null;
  if (typeof token === 'string' && token.startsWith(NAMED_RECORDER_PREFIX))
    return token.slice(NAMED_RECORDER_PREFIX.length);
  return undefined;
}
