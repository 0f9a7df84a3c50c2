import type { EventStatement } from '../../api/event-statement.js';
import type { StoredEventState } from '../../api/events-api.js';
import type { Occurrence } from '../publish/index.js';

/** The most `series.count` can be: the API server holds it as an int32, and refuses a patch beyond it (422). */
const MAX_SERIES_COUNT = 2_147_483_647;

/**
 * Why an Event met under a series' name (or listed for it) is not one the
 * series may continue: it is about another object, says something else,
 * came from another controller, carries no write marks where this
 * recorder's Events carry them (not written by this library), or its count
 * has no room for what the series would add. Each is said in a log line
 * as it is: a fixed phrase, never the Event's own words.
 */
export type NotOwnBecause =
  | 'it is about another object'
  | 'it has another type'
  | 'it has another reason'
  | 'it has another action'
  | 'another controller reported it'
  | 'it has another note'
  | 'it names another related object'
  | 'it does not say what it is about'
  | 'this library did not write it'
  | 'its count has no room left';

/**
 * Whether the stored Event `state` is provably the own Event of the series
 * of `occurrence`, written by `controller`, saying what `occurrence` says:
 * of its series (see {@link whyNotOfSeries}), with the same type, note and
 * related object, which no update changes. Labels and annotations are not
 * asked: anyone who may patch an Event can change them, and they change
 * nothing it says. Returns why not, or `undefined` when it is.
 */
export function whyNotOwn(
  state: StoredEventState,
  occurrence: Occurrence,
  controller: string,
  marked: boolean,
): NotOwnBecause | undefined {
  const notOfSeries = whyNotOfSeries(state, occurrence, controller, marked);
  if (notOfSeries) return notOfSeries;
  const { event } = occurrence;
  const statement = state.statement!;
  if (statement.type !== event.type) return 'it has another type';
  if ((statement.note || undefined) !== (event.note || undefined)) return 'it has another note';
  if (!sameRelated(statement.related, event.related)) return 'it names another related object';
  return undefined;
}

/**
 * Whether the stored Event `state` is one of the series of `occurrence`
 * (any of its notes): about the same object (uid), for the same reason and
 * action, reported by `controller`, and, where this recorder marks its
 * writes (`marked`), carrying write marks. Returns why not, or `undefined`.
 */
export function whyNotOfSeries(
  state: StoredEventState,
  occurrence: Occurrence,
  controller: string,
  marked: boolean,
): NotOwnBecause | undefined {
  const statement = state.statement;
  if (!statement) return 'it does not say what it is about';
  const { resource, event } = occurrence;
  const uid = resource.metadata?.uid;
  if (!uid || statement.regardingUid !== uid) return 'it is about another object';
  if (statement.reason !== event.reason) return 'it has another reason';
  if (statement.action !== event.action) return 'it has another action';
  if (statement.reportingController !== controller) return 'another controller reported it';
  if (marked && !state.writes) return 'this library did not write it';
  return undefined;
}

/** Whether an Event counting `count` takes `adding` more without passing {@link MAX_SERIES_COUNT}. */
export function hasRoom(count: number, adding: number): boolean {
  return count + adding <= MAX_SERIES_COUNT;
}

/** The same related object: the fields that name it, an empty one as absent (as the series' identity reads them). */
function sameRelated(stored: EventStatement['related'], sent: Occurrence['event']['related']): boolean {
  if (!stored || !sent) return !stored === !sent;
  return (
    (stored.kind || undefined) === (sent.kind || undefined) &&
    (stored.namespace || undefined) === (sent.namespace || undefined) &&
    (stored.name || undefined) === (sent.name || undefined) &&
    (stored.uid || undefined) === (sent.uid || undefined)
  );
}
