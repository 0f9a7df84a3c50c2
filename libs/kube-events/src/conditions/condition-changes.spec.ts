import { InvalidEventError } from '../errors.js';
import { conditionChanges, type StatusCondition } from './condition-changes.js';

const ready = (status: string, reason?: string, more: Partial<StatusCondition> = {}): StatusCondition => ({
  type: 'Ready',
  status,
  ...(reason !== undefined && { reason }),
  ...more,
});
const degraded = (status: string, reason?: string): StatusCondition => ({ ...ready(status, reason), type: 'Degraded' });

describe('conditionChanges', () => {
  it.each<[string, StatusCondition[] | undefined, StatusCondition[] | undefined, ([string, string, string] | [])[]]>([
    // [what, before, after, [type, from → to, Event type] per change]
    [
      'False to True',
      [ready('False', 'SourceMissing')],
      [ready('True', 'Mirrored')],
      [['Ready', 'False → True', 'Normal']],
    ],
    [
      'True to False',
      [ready('True', 'Mirrored')],
      [ready('False', 'SourceMissing')],
      [['Ready', 'True → False', 'Warning']],
    ],
    [
      'True to Unknown: it left its good state',
      [ready('True', 'A')],
      [ready('Unknown', 'B')],
      [['Ready', 'True → Unknown', 'Warning']],
    ],
    ['Unknown to True', [ready('Unknown', 'A')], [ready('True', 'B')], [['Ready', 'Unknown → True', 'Normal']]],
    [
      'Unknown to False: it is bad',
      [ready('Unknown', 'A')],
      [ready('False', 'B')],
      [['Ready', 'Unknown → False', 'Warning']],
    ],
    [
      'False to Unknown: not good, but not worse',
      [ready('False', 'A')],
      [ready('Unknown', 'B')],
      [['Ready', 'False → Unknown', 'Normal']],
    ],
    ['a new reason while False', [ready('False', 'A')], [ready('False', 'B')], [['Ready', 'False → False', 'Warning']]],
    ['a new reason while True', [ready('True', 'A')], [ready('True', 'B')], [['Ready', 'True → True', 'Normal']]],
    ['appearing True is not a Warning', [], [ready('True', 'A')], [['Ready', '→ True', 'Normal']]],
    ['appearing False', undefined, [ready('False', 'A')], [['Ready', '→ False', 'Warning']]],
    ['appearing Unknown', [], [ready('Unknown', 'A')], [['Ready', '→ Unknown', 'Normal']]],
    ['removed while True', [ready('True', 'A')], [], [['Ready', 'True →', 'Warning']]],
    ['removed while False', [ready('False', 'A')], undefined, [['Ready', 'False →', 'Normal']]],
    [
      'Degraded turning True (abnormal-true)',
      [degraded('False', 'A')],
      [degraded('True', 'B')],
      [['Degraded', 'False → True', 'Warning']],
    ],
    [
      'Degraded turning False',
      [degraded('True', 'A')],
      [degraded('False', 'B')],
      [['Degraded', 'True → False', 'Normal']],
    ],
    ['Degraded appearing False', [], [degraded('False', 'A')], [['Degraded', '→ False', 'Normal']]],
    [
      'a new lastTransitionTime, observedGeneration and message alone',
      [ready('True', 'A', { lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 1, message: 'one' })],
      [ready('True', 'A', { lastTransitionTime: '2026-01-02T00:00:00Z', observedGeneration: 2, message: 'two' })],
      [],
    ],
    [
      'a new order alone',
      [ready('True', 'A'), degraded('False', 'B')],
      [degraded('False', 'B'), ready('True', 'A')],
      [],
    ],
    ['no reason, then an empty one', [ready('True')], [ready('True', '')], []],
    ['nothing before and after', undefined, undefined, []],
  ])('%s', (_what, before, after, expected) => {
    const changes = conditionChanges(before, after).map((change) => [
      change.type,
      `${change.before?.status ?? ''} → ${change.after?.status ?? ''}`.trim(),
      change.eventType,
    ]);

    expect(changes).toEqual(expected);
  });

  it('reports each changed condition, in the order of the new list, then the removed ones', () => {
    const before = [ready('True', 'A'), degraded('False', 'A'), { type: 'Synced', status: 'True', reason: 'A' }];
    const after = [{ type: 'Available', status: 'True' }, degraded('True', 'B'), ready('False', 'C')];

    expect(conditionChanges(before, after).map((change) => change.type)).toEqual([
      'Available',
      'Degraded',
      'Ready',
      'Synced',
    ]);
  });

  it('carries what the condition said before and after, message included', () => {
    const [change] = conditionChanges(
      [ready('False', 'SourceMissing', { message: 'source shop/app not found' })],
      [ready('True', 'Mirrored', { message: 'copied 3 keys', lastTransitionTime: '2026-01-01T00:00:00Z' })],
    );

    expect(change).toEqual({
      type: 'Ready',
      before: { status: 'False', reason: 'SourceMissing', message: 'source shop/app not found' },
      after: { status: 'True', reason: 'Mirrored', message: 'copied 3 keys' },
      eventType: 'Normal',
    });
  });

  it('takes the abnormal-true conditions the caller declares', () => {
    const before = [{ type: 'OutOfSync', status: 'False', reason: 'InSync' }];
    const after = [{ type: 'OutOfSync', status: 'True', reason: 'Drifted' }];

    expect(conditionChanges(before, after)[0].eventType).toBe('Normal');
    expect(conditionChanges(before, after, { abnormalTrue: ['OutOfSync'] })[0].eventType).toBe('Warning');
  });

  it('passes over what is not a condition, and reads the first of a type listed twice', () => {
    const after = [
      null,
      'Ready',
      { status: 'True' },
      { type: 7, status: 'True' },
      ready('True', 'A'),
      ready('False', 'B'),
    ];

    expect(conditionChanges(undefined, after as unknown as StatusCondition[])).toEqual([
      { type: 'Ready', after: { status: 'True', reason: 'A' }, eventType: 'Normal' },
    ]);
  });

  it.each([
    ['a string', 'Degraded'],
    ['a list with a number', ['Degraded', 7]],
  ])('refuses abnormalTrue that is %s, naming it', (_what, abnormalTrue) => {
    const refused = () => conditionChanges([], [], { abnormalTrue: abnormalTrue as never });
    expect(refused).toThrow(InvalidEventError);
    expect(refused).toThrow(/^abnormalTrue must be a list of condition types/);
  });
});
