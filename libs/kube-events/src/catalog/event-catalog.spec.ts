import { defineEventCatalog, isEventCatalog } from './event-catalog.js';
import { renderEventCatalog } from './catalog-markdown.js';

const entry = {
  reason: 'SourceMissing',
  type: 'Warning',
  action: 'Mirror',
  when: 'the source does not exist',
  note: (source: string) => `source ${source} not found`,
} as const;

describe('defineEventCatalog', () => {
  it('gives, for each entry, a function that builds the event from what its note needs', () => {
    const events = defineEventCatalog({
      sourceMissing: entry,
      synced: { reason: 'Synced', type: 'Normal', action: 'Sync', when: 'copies were written', note: 'copied' },
    });

    expect(events.sourceMissing('shop/app')).toEqual({
      type: 'Warning',
      reason: 'SourceMissing',
      action: 'Mirror',
      note: 'source shop/app not found',
    });
    expect(events.synced()).toEqual({ type: 'Normal', reason: 'Synced', action: 'Sync', note: 'copied' });
    expect(events.sourceMissing.entry.when).toBe('the source does not exist');
    expect(isEventCatalog(events)).toBe(true);
    expect(isEventCatalog({ sourceMissing: events.sourceMissing })).toBe(false);
  });

  it.each([
    [
      'a reason that is not UpperCamelCase',
      { reason: 'source-missing' },
      /entry bad: reason "source-missing" is not UpperCamelCase/,
    ],
    ['an action that starts lower case', { action: 'mirror' }, /entry bad: action "mirror" is not UpperCamelCase/],
    [
      'a reason over 128 characters',
      { reason: `S${'a'.repeat(128)}` },
      /entry bad: reason is longer than 128 characters/,
    ],
    ['a type that is neither', { type: 'Error' }, /entry bad: type "Error" is not Normal or Warning/],
    ['no when', { when: ' ' }, /entry bad: when must say when it is published/],
    ['a note that is a number', { note: 7 }, /entry bad: note must be a string or a function/],
  ])('refuses %s, naming the entry', (_case, change, message) => {
    expect(() => defineEventCatalog({ good: entry, bad: { ...entry, reason: 'Other', ...change } as never })).toThrow(
      message,
    );
  });

  it('refuses a reason declared twice, naming both entries', () => {
    expect(() => defineEventCatalog({ first: entry, second: { ...entry, action: 'Copy' } })).toThrow(
      "defineEventCatalog: entry second: reason SourceMissing is already entry first's.",
    );
  });

  it('renders a Markdown table in the order declared, each cell on one line with its pipes escaped', () => {
    const events = defineEventCatalog({
      sourceMissing: { ...entry, whatToDo: 'create it | or fix\n  spec.source' },
      synced: { reason: 'Synced', type: 'Normal', action: 'Sync', when: 'copies were written', note: 'copied' },
    });

    expect(renderEventCatalog(events, { title: 'Widget Events', intro: 'What the widget controller says.' })).toBe(
      [
        '# Widget Events',
        '',
        'What the widget controller says.',
        '',
        '| Reason | Type | Action | When | What to do |',
        '| ------ | ---- | ------ | ---- | ---------- |',
        '| `SourceMissing` | Warning | `Mirror` | the source does not exist | create it \\| or fix spec.source |',
        '| `Synced` | Normal | `Sync` | copies were written | — |',
        '',
      ].join('\n'),
    );
  });

  describe('a condition’s Events', () => {
    const ready = { condition: 'Ready', reasons: ['Mirrored', 'SourceMissing'], when: 'the mirror is ready or not' };

    it('are held as their entry, and rendered on one row that says their polarity, reasons and action', () => {
      const events = defineEventCatalog({
        ready,
        degraded: { condition: 'Degraded', action: 'Mirror', when: 'copies fell behind', whatToDo: 'read the note' },
      });

      expect(events.ready.entry).toEqual(ready);
      expect(renderEventCatalog(events).split('\n').slice(4, 6)).toEqual([
        '| `Mirrored`, `SourceMissing`: the reason of condition `Ready` | Normal when `Ready` turns True, Warning when ' +
          'it turns False or leaves True | `UpdateStatus` | the mirror is ready or not | — |',
        '| the reason of condition `Degraded` | Normal when `Degraded` turns False, Warning when it turns True or ' +
          'leaves False | `Mirror` | copies fell behind | read the note |',
      ]);
    });

    it.each([
      ['an empty condition', { condition: '' }, /entry bad: condition must be a condition type of 1 to 316 characters/],
      ['an action that is not UpperCamelCase', { action: 'update-status' }, /entry bad: action "update-status" is not/],
      ['a reason that is not UpperCamelCase', { reasons: ['Mirrored', 'not_found'] }, /entry bad: reason "not_found"/],
      ['reasons that are not a list', { reasons: 'Mirrored' }, /entry bad: reasons must be a list/],
      ['an abnormalTrue that is not a boolean', { abnormalTrue: 'yes' }, /entry bad: abnormalTrue must be a boolean/],
      ['no when', { when: '' }, /entry bad: when must say when the condition changes/],
    ])('refuse %s, naming the entry', (_case, change, message) => {
      expect(() => defineEventCatalog({ bad: { ...ready, ...change } as never })).toThrow(message);
    });

    it('refuse a condition declared twice', () => {
      expect(() => defineEventCatalog({ ready, again: { ...ready, action: 'Mirror' } })).toThrow(
        "defineEventCatalog: entry again: condition Ready is already entry ready's.",
      );
    });
  });
});
