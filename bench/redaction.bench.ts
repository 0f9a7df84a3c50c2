/**
 * What redaction costs per note: a note as the recorder prepares it
 * (redacted, then cut to 1 KiB) with the default redaction, against a
 * note without credentials redacted so (the baseline) and against the
 * same notes without redaction (`redactNotes: false`), for a note without
 * credentials, one with credentials, and a 1 MB one (of which only an
 * 8 KiB window is redacted); and `describeError` of an error, which now
 * redacts its whole description before its cut, against the same
 * description left unredacted. CPU time, median of interleaved rounds.
 */
import { redactCredentials } from '../libs/kube-events/src/text/credential-redaction.js';
import { redactedNote } from '../libs/kube-events/src/event-rules/note-truncation.js';
import { describeError } from '../libs/kube-events/src/error-descriptions/describe-error.js';
import { CREDENTIAL_FORMS } from '../test/support/credential-forms.js';
import { CONTEXT_CREDENTIAL_FORMS } from '../test/support/context-credential-forms.js';
import { CRAFTED_PIECES, KNOWN_CRAFTED_TEXTS, plainText, repeatedTo } from '../test/support/crafted-text.js';
import { cpuMicrosPerOp, median, printTable, ratio } from './measure.js';

const ROUNDS = 7;
const NOTES_PER_ROUND = 20_000;

const plain =
  'NotFound: configmaps "source-missing" not found while mirroring widget default/w1 (attempt 3, 1200 ms); ' +
  'the reconcile will be retried after the backoff of the controller';
const withCredentials = [...CREDENTIAL_FORMS, ...CONTEXT_CREDENTIAL_FORMS].map((form) => form.text);
const huge = `${plain} ${'x'.repeat(1_000_000)}`;
const unredacted = (note: string) => note;
const redacted = (note: string) => redactCredentials(note);

interface Case {
  readonly name: string;
  readonly run: (index: number) => unknown;
}

const cases: readonly Case[] = [
  { name: 'note without credentials, redacted (baseline)', run: () => redactedNote(plain, redacted) },
  { name: 'note without credentials, no redaction', run: () => redactedNote(plain, unredacted) },
  {
    name: 'note with a credential, no redaction',
    run: (index) => redactedNote(withCredentials[index % withCredentials.length], unredacted),
  },
  {
    name: 'note with a credential, redacted',
    run: (index) => redactedNote(withCredentials[index % withCredentials.length], redacted),
  },
  { name: '1 MB note, no redaction', run: () => redactedNote(huge, unredacted) },
  { name: '1 MB note, redacted (8 KiB window)', run: () => redactedNote(huge, redacted) },
  {
    name: 'describeError of an error with a credential (redacts, then cuts to 300 B)',
    run: (index) => describeError(new Error(withCredentials[index % withCredentials.length])),
  },
];

/**
 * Each case's median CPU µs per run over `rounds` interleaved rounds of
 * `perRound` runs, so a machine's drift moves every case alike; and
 * whether the results were used, which keeps the runs from being optimised away.
 */
async function interleavedMedians(
  runs: readonly ((index: number) => unknown)[],
  rounds: number,
  perRound: number,
): Promise<{ medians: number[]; used: boolean }> {
  const micros = runs.map(() => [] as number[]);
  let sink = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [index, run] of runs.entries()) {
      micros[index].push(
        await cpuMicrosPerOp(perRound, async (count) => {
          for (let op = 0; op < count; op++) sink += String(run(op)).length;
        }),
      );
    }
  }
  return { medians: micros.map(median), used: sink > 0 };
}

export async function redactionCost(): Promise<void> {
  const { medians, used } = await interleavedMedians(
    cases.map(({ run }) => run),
    ROUNDS,
    NOTES_PER_ROUND,
  );
  printTable(
    `Redaction per note (${NOTES_PER_ROUND} notes per round; CPU time, median of ${ROUNDS} interleaved rounds; ${used ? 'results used' : ''})`,
    ['note', 'µs per note', 'vs baseline'],
    cases.map(({ name }, index) => [name, medians[index].toFixed(2), ratio(medians[index], medians[0])]),
  );
}

const CRAFTED_SIZE = 64 * 1024;
const CRAFTED_ROUNDS = 5;
const TEXTS_PER_ROUND = 20;

/** 64 KiB of crafted text (the cases once found slow, and the building blocks repeated) against 64 KiB of a plain note. */
const craftedCases: readonly { name: string; text: string }[] = [
  { name: '64 KiB plain note (baseline)', text: plainText(CRAFTED_SIZE) },
  ...Object.entries(KNOWN_CRAFTED_TEXTS).map(([name, build]) => ({ name, text: build(CRAFTED_SIZE) })),
  { name: 'every building block, repeated', text: repeatedTo(CRAFTED_PIECES.join(''), CRAFTED_SIZE) },
];

export async function craftedRedactionCost(): Promise<void> {
  const { medians, used } = await interleavedMedians(
    craftedCases.map(
      ({ text }) =>
        () =>
          redactCredentials(text),
    ),
    CRAFTED_ROUNDS,
    TEXTS_PER_ROUND,
  );
  printTable(
    `Redaction of 64 KiB of crafted text (CPU time, median of ${CRAFTED_ROUNDS} interleaved rounds; ${used ? 'results used' : ''})`,
    ['text', 'ms per text', 'vs plain'],
    craftedCases.map(({ name }, index) => [
      name,
      (medians[index] / 1000).toFixed(2),
      ratio(medians[index], medians[0]),
    ]),
  );
}
