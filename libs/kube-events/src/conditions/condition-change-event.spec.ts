import type { ConditionChange } from './condition-changes.js';
import { conditionChangeEvent, conditionChangeNote, conditionChangeReason } from './condition-change-event.js';

const change = (more: Partial<ConditionChange>): ConditionChange => ({ type: 'Ready', eventType: 'Normal', ...more });

describe('the Event of a condition change', () => {
  it('is of the change’s type, with the condition’s reason, the action given, and a note naming the change', () => {
    const event = conditionChangeEvent(
      change({
        before: { status: 'False', reason: 'SourceMissing', message: 'source not found' },
        after: { status: 'True', reason: 'Mirrored', message: 'copied 3 keys' },
      }),
      'UpdateStatus',
      { team: 'shop' },
    );

    expect(event).toEqual({
      type: 'Normal',
      reason: 'Mirrored',
      action: 'UpdateStatus',
      note: 'Ready False → True: copied 3 keys',
      labels: { team: 'shop' },
    });
  });

  it.each<[string, Partial<ConditionChange>, string]>([
    ['appeared', { after: { status: 'Unknown', message: 'starting' } }, 'Ready → Unknown: starting'],
    ['removed', { before: { status: 'True', message: 'copied' } }, 'Ready True → removed'],
    [
      'a new reason alone',
      {
        before: { status: 'False', reason: 'SourceMissing' },
        after: { status: 'False', reason: 'TargetTaken', message: 'x' },
      },
      'Ready stays False, reason SourceMissing → TargetTaken: x',
    ],
    ['no message', { before: { status: 'True' }, after: { status: 'False' } }, 'Ready True → False'],
  ])('its note, for a condition %s', (_what, given, note) => {
    expect(conditionChangeNote(change(given))).toBe(note);
  });

  it.each<[string, Partial<ConditionChange>, string]>([
    ['an UpperCamelCase reason as it is', { after: { status: 'True', reason: 'Mirrored' } }, 'Mirrored'],
    [
      'a reason of metav1 letters, made UpperCamelCase',
      { after: { status: 'False', reason: 'minimum_replicas:low' } },
      'MinimumReplicasLow',
    ],
    ['no reason: the type and the status', { after: { status: 'True' } }, 'ReadyTrue'],
    [
      'a reason that starts with a digit: the type and the status',
      { after: { status: 'False', reason: '5xx' } },
      'ReadyFalse',
    ],
    ['removed', { before: { status: 'True', reason: 'Mirrored' } }, 'ReadyRemoved'],
    [
      'a prefixed type with dashes',
      { type: 'example.com/source-ready', after: { status: 'Unknown' } },
      'SourceReadyUnknown',
    ],
    ['a type that starts with a digit', { type: '3rd-party', after: { status: 'True' } }, 'Condition3rdPartyTrue'],
    [
      'a reason over 128 characters, cut',
      { after: { status: 'True', reason: `R${'a'.repeat(300)}` } },
      `R${'a'.repeat(127)}`,
    ],
  ])('its reason: %s', (_what, given, reason) => {
    expect(conditionChangeReason(change(given))).toBe(reason);
  });
});
