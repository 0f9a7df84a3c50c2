import { catalogEntries, type EventCatalog, type EventCatalogEntry } from './event-catalog.js';
import { conditionEventsCells, isConditionEventsEntry, type ConditionEventsEntry } from './condition-events.js';

/** What a rendered catalog says above its table. */
export interface RenderEventCatalogOptions {
  /** The page's heading. @default 'Events' */
  readonly title?: string;
  /** A paragraph under the heading: who publishes these Events, and how to list them. */
  readonly intro?: string;
}

/**
 * A catalog as a Markdown page: a heading, and a table of its Events
 * (reason, type, action, when, what to do) in the order they were declared,
 * a condition's Events on one row, for a controller's docs. `nestjs-kube-events catalog` writes the same.
 */
export function renderEventCatalog(
  catalog: EventCatalog<Record<string, EventCatalogEntry | ConditionEventsEntry>>,
  options: RenderEventCatalogOptions = {},
): string {
  const rows = catalogEntries(catalog).map(([, entry]) => {
    const [reason, type, action] = isConditionEventsEntry(entry)
      ? conditionEventsCells(entry)
      : [`\`${entry.reason}\``, entry.type, `\`${entry.action}\``];
    return `| ${reason} | ${type} | ${action} | ${cell(entry.when)} | ${cell(entry.whatToDo ?? '—')} |`;
  });
  return [
    `# ${options.title ?? 'Events'}`,
    '',
    ...(options.intro ? [options.intro, ''] : []),
    '| Reason | Type | Action | When | What to do |',
    '| ------ | ---- | ------ | ---- | ---------- |',
    ...rows,
    '',
  ].join('\n');
}

/** A table cell's text: on one line, its pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}
