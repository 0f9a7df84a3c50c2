import { defineEventCatalog } from '../catalog/event-catalog.js';
import { InvalidEventError } from '../errors.js';
import { conditionChangeEvents } from './condition-change-events.js';

const catalog = defineEventCatalog({
  ready: { condition: 'Ready', action: 'Mirror', when: 'copies are current' },
  outOfSync: { condition: 'OutOfSync', abnormalTrue: true, when: 'a copy drifted' },
});
const before = [
  { type: 'Ready', status: 'False', reason: 'SourceMissing' },
  { type: 'OutOfSync', status: 'False', reason: 'InSync' },
];
const after = [
  { type: 'Ready', status: 'True', reason: 'Synced' },
  { type: 'OutOfSync', status: 'True', reason: 'Drifted' },
  { type: 'Available', status: 'True', reason: 'Up' },
];

describe('conditionChangeEvents', () => {
  it('gives every change its Event, with the action given', () => {
    expect(
      conditionChangeEvents(before, after, { action: 'Reconcile' }).map(({ type, reason, action }) => [
        type,
        reason,
        action,
      ]),
    ).toEqual([
      ['Normal', 'Synced', 'Reconcile'],
      ['Normal', 'Drifted', 'Reconcile'],
      ['Normal', 'Up', 'Reconcile'],
    ]);
  });

  it('with catalog entries, gives the declared conditions alone, with their action and polarity', () => {
    expect(
      conditionChangeEvents(before, after, { events: [catalog.ready, catalog.outOfSync] }).map(
        ({ type, reason, action }) => [type, reason, action],
      ),
    ).toEqual([
      ['Normal', 'Synced', 'Mirror'],
      ['Warning', 'Drifted', 'UpdateStatus'],
    ]);
  });

  it.each([
    ['not a list', { entry: { condition: 'Ready' } }],
    ['an entry of one Event', [{ entry: { reason: 'Synced' } }]],
    ['null in the list', [null]],
  ])('refuses events that are %s, naming the field', (_what, events) => {
    const refused = () => conditionChangeEvents(before, after, { events: events as never });

    expect(refused).toThrow(InvalidEventError);
    expect(refused).toThrow(/^events must list the condition entries of an Event catalog/);
  });
});
