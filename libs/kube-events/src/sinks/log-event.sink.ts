import { LibraryLogger } from '../text/library-logger.js';
import type { EventSink } from './event-sink.js';
import type { PublishOutcome } from '../recorder/publish/index.js';
import { printable } from '../text/printable-text.js';

/**
 * The built-in structured log sink, switched on by the `logEvents` option:
 * one logfmt line per outcome through Nest's `Logger` (context
 * `KubeEvents`), at `log` level, or `warn` for failed and dropped ones.
 *
 * @example
 * outcome=patched controller=example.com/widgets object=Widget/default/w1 type=Warning reason=ReconcileFailed count=3 note="source is missing" event=w1.18c7a3f2b9e4d000
 */
export class LogEventSink implements EventSink {
  private readonly logger = new LibraryLogger('KubeEvents');

  handle(outcome: PublishOutcome): void {
    const line = describeOutcome(outcome);
    if (outcome.kind === 'failed' || outcome.kind === 'dropped') this.logger.warn(line);
    else this.logger.log(line);
  }
}

/**
 * One logfmt line: `key=value` pairs, values quoted when they hold spaces,
 * quotes, `=`, line breaks or control characters, which are escaped (a
 * note, an object's name or an error's text cannot start a line of its
 * own or send commands to a terminal).
 */
function describeOutcome(outcome: PublishOutcome): string {
  const { regarding, event } = outcome;
  const object = [regarding.kind ?? 'object', regarding.namespace, regarding.name ?? regarding.uid]
    .filter(Boolean)
    .join('/');
  const fields: [string, string | number | undefined][] = [
    ['outcome', outcome.kind],
    ['controller', outcome.reporter.controller],
    ['object', object],
    ['type', event.type],
    ['reason', event.reason],
    ['action', event.action],
    ['count', outcome.count],
    ['note', event.note],
    ['event', outcome.eventName],
    ['error', outcome.error?.message],
    ['durationMs', outcome.kind === 'coalesced' || outcome.kind === 'combined' ? undefined : outcome.durationMs],
  ];
  return fields
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${logfmtValue(value!)}`)
    .join(' ');
}

function logfmtValue(value: string | number): string {
  if (typeof value === 'number') return String(value);
  // JSON escapes C0 controls; printable() then escapes DEL, C1 and the marks JSON leaves as they are.
  return value === '' || /[\s"=\\]/.test(value) || printable(value) !== value
    ? printable(JSON.stringify(value))
    : value;
}
