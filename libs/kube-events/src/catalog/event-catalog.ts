import { describeValue, excerpt } from '../text/describe-value.js';
import { MAX_FIELD_LENGTH } from '../kube-events.constants.js';
import type { EventType, KubeEvent } from '../kube-events.interfaces.js';
import { INVALID_CATALOG_ENTRY } from '../kube-events.messages.js';
import {
  conditionEntryProblem,
  isConditionEventsEntry,
  type ConditionEvents,
  type ConditionEventsEntry,
} from './condition-events.js';

/** How an entry builds its note: a fixed text, or a function of what the publish passes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a note builder types its parameters as it likes
export type NoteBuilder = string | ((...args: any[]) => string);

/** One Event a controller publishes, declared once. */
export interface EventCatalogEntry<Note extends NoteBuilder = NoteBuilder> {
  /** UpperCamelCase, at most 128 characters, and one entry's alone in its catalog: `SourceMissing`. */
  readonly reason: string;
  /** `Warning` for what a person should look at, `Normal` for what went as it should. */
  readonly type: EventType;
  /** What the controller was doing, UpperCamelCase, at most 128 characters: `Mirror`. */
  readonly action: string;
  /** When the controller publishes it, in a person's words, for the catalog's table. */
  readonly when: string;
  /** What a person who reads it should do; none for an Event that asks nothing. */
  readonly whatToDo?: string;
  /** The note: a fixed text, or built from what the publish passes. */
  readonly note: Note;
}

/** What an entry's note builder takes: its parameters, or nothing for a fixed note. */
export type NoteArguments<Note> = Note extends (...args: infer Args) => string ? Args : [];

/** A declared Event: called with what its note needs, it gives the event to publish. */
export type CatalogEvent<Entry extends EventCatalogEntry = EventCatalogEntry> = ((
  ...args: NoteArguments<Entry['note']>
) => KubeEvent) & {
  /** The entry it was declared with. */
  readonly entry: Readonly<Entry>;
};

/** What a catalog holds for an entry: a typed function for one Event, the entry alone for a condition's Events. */
export type DeclaredEvent<Entry> = Entry extends ConditionEventsEntry
  ? ConditionEvents<Entry>
  : Entry extends EventCatalogEntry
    ? CatalogEvent<Entry>
    : never;

/** A controller's Events, by the names it declared them under. */
export type EventCatalog<Entries extends Record<string, EventCatalogEntry | ConditionEventsEntry>> = {
  readonly [Name in keyof Entries]: DeclaredEvent<Entries[Name]>;
};

/** Marks a catalog, so that `renderEventCatalog` and the command find its entries in any copy of the package. */
const CATALOG_ENTRIES = Symbol.for('nestjs-kube-events.event-catalog');

const UPPER_CAMEL_CASE = /^[A-Z][a-zA-Z0-9]*$/;

/**
 * Declares a controller's Events once, as SIG Instrumentation's Event style
 * guide asks (a few fixed UpperCamelCase reasons and actions that the
 * controller documents), and gives a typed function for each: its result is
 * what `recorder.publish` takes, and `@PublishesFailures({ event })` takes
 * the function of a Warning. Every entry is checked here, when the catalog
 * is declared: reason and action UpperCamelCase and at most 128 characters,
 * no reason twice; a mistake throws an error that names the entry.
 *
 * An entry with a `condition` declares the Events that say a status
 * condition changed ({@link ConditionEventsEntry}): the catalog holds it
 * for `publishConditionChanges` and `@PublishesConditionChanges`, and its
 * table documents it.
 *
 * @example
 * export const mirrorEvents = defineEventCatalog({
 *   sourceMissing: {
 *     reason: 'SourceMissing', type: 'Warning', action: 'Mirror',
 *     when: 'the source ConfigMap does not exist',
 *     whatToDo: 'create the source ConfigMap, or correct spec.source',
 *     note: (source: string) => `source ConfigMap ${source} not found`,
 *   },
 * });
 *   ready: {
 *     condition: 'Ready', reasons: ['Mirrored', 'SourceMissing'],
 *     when: 'the mirror became ready, or stopped being so',
 *   },
 * });
 * await recorder.publish(mirror, mirrorEvents.sourceMissing('shop/app-config'));
 */
export function defineEventCatalog<const Entries extends Record<string, EventCatalogEntry | ConditionEventsEntry>>(
  entries: Entries,
): EventCatalog<Entries> {
  const byReason = new Map<string, string>();
  const byCondition = new Map<string, string>();
  const catalog: Record<string, CatalogEvent | ConditionEvents> = {};
  const checked: [string, EventCatalogEntry | ConditionEventsEntry][] = [];
  for (const [name, entry] of Object.entries(entries)) {
    if (typeof entry === 'object' && entry !== null && isConditionEventsEntry(entry)) {
      const problem = conditionEntryProblem(entry);
      if (problem !== undefined) throw new TypeError(INVALID_CATALOG_ENTRY(name, problem));
      const earlier = byCondition.get(entry.condition);
      if (earlier !== undefined)
        throw new TypeError(
          INVALID_CATALOG_ENTRY(name, `condition ${excerpt(entry.condition)} is already entry ${excerpt(earlier)}'s`),
        );
      byCondition.set(entry.condition, name);
      const frozen = Object.freeze({ ...entry, ...(entry.reasons && { reasons: Object.freeze([...entry.reasons]) }) });
      checked.push([name, frozen]);
      catalog[name] = Object.freeze({ entry: frozen });
      continue;
    }
    checkEntry(name, entry);
    const earlier = byReason.get(entry.reason);
    if (earlier !== undefined)
      throw new TypeError(INVALID_CATALOG_ENTRY(name, `reason ${entry.reason} is already entry ${excerpt(earlier)}'s`));
    byReason.set(entry.reason, name);
    const frozen = Object.freeze({ ...entry });
    checked.push([name, frozen]);
    catalog[name] = Object.assign((...args: unknown[]) => eventOf(frozen, args), { entry: frozen });
  }
  Object.defineProperty(catalog, CATALOG_ENTRIES, { value: Object.freeze(checked) });
  return Object.freeze(catalog) as unknown as EventCatalog<Entries>;
}

/** Whether `value` is a catalog `defineEventCatalog` made. */
export function isEventCatalog(
  value: unknown,
): value is EventCatalog<Record<string, EventCatalogEntry | ConditionEventsEntry>> {
  return typeof value === 'object' && value !== null && CATALOG_ENTRIES in value;
}

/** A catalog's entries, by name, in the order they were declared. */
export function catalogEntries(
  catalog: EventCatalog<Record<string, EventCatalogEntry | ConditionEventsEntry>>,
): readonly (readonly [string, EventCatalogEntry | ConditionEventsEntry])[] {
  return (catalog as unknown as { [CATALOG_ENTRIES]: [string, EventCatalogEntry | ConditionEventsEntry][] })[
    CATALOG_ENTRIES
  ];
}

function eventOf(entry: EventCatalogEntry, args: unknown[]): KubeEvent {
  const note = typeof entry.note === 'string' ? entry.note : entry.note(...args);
  return { type: entry.type, reason: entry.reason, action: entry.action, note };
}

function checkEntry(name: string, entry: EventCatalogEntry): void {
  const fail = (problem: string) => new TypeError(INVALID_CATALOG_ENTRY(name, problem));
  if (typeof entry !== 'object' || entry === null) throw fail('it is not an object');
  for (const field of ['reason', 'action'] as const) {
    const value: unknown = entry[field];
    if (typeof value !== 'string' || !UPPER_CAMEL_CASE.test(value))
      throw fail(`${field} ${describeValue(value)} is not UpperCamelCase (letters and digits, a capital first)`);
    if (value.length > MAX_FIELD_LENGTH) throw fail(`${field} is longer than ${MAX_FIELD_LENGTH} characters`);
  }
  if (entry.type !== 'Normal' && entry.type !== 'Warning')
    throw fail(`type ${describeValue(entry.type)} is not Normal or Warning`);
  if (typeof entry.when !== 'string' || entry.when.trim() === '') throw fail('when must say when it is published');
  if (entry.whatToDo !== undefined && typeof entry.whatToDo !== 'string') throw fail('whatToDo must be a string');
  if (typeof entry.note !== 'string' && typeof entry.note !== 'function')
    throw fail('note must be a string or a function that returns one');
}
