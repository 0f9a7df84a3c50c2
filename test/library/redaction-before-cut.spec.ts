import { fc, test as property } from '@fast-check/jest';
import { describeError, redactCredentials } from 'nestjs-kube-events';
import { redactedNote } from '../../libs/kube-events/src/event-rules/note-truncation.js';
import { CREDENTIAL_FORMS, survivingParts } from '../support/credential-forms.js';

/** Text around a credential that cannot itself look like a part of one: words of one or two letters. */
const filler = (maxLength: number) =>
  fc
    .array(fc.constantFrom('a ', 'of ', 'x, ', 'to: ', 'i.', '\n', '- '), { maxLength: Math.ceil(maxLength / 2) })
    .map((words) => words.join('').slice(0, maxLength));
const form = fc.constantFrom(...CREDENTIAL_FORMS);

describe('redaction before the cut', () => {
  property.prop([filler(700), form, filler(200), fc.integer({ min: 16, max: 1200 })], { numRuns: 400 })(
    'describeError leaves no part of a credential, wherever the cut falls',
    (before, { text, secret }, after, maxBytes) => {
      const described = describeError(new Error(`${before}${text}${after}`), { maxBytes });

      expect(survivingParts(described, secret)).toEqual([]);
    },
  );

  property.prop([filler(5000), form, filler(200)], { numRuns: 100 })(
    "describeError leaves no part of a credential in an error's cause, past its message",
    (before, { text, secret }, after) => {
      const error = new Error(`could not mirror the source: ${before}`, { cause: new Error(`${text}${after}`) });

      expect(survivingParts(describeError(error, { maxBytes: 8192 }), secret)).toEqual([]);
    },
  );

  property.prop([fc.integer({ min: 0, max: 9000 }), form, filler(300)], { numRuns: 400 })(
    'a note leaves no part of a credential, wherever the 1 KiB cut or the 8 KiB window falls',
    (offset, { text, secret }, after) => {
      const note = `${'x '.repeat(Math.ceil(offset / 2)).slice(0, offset)}${text}${after}${'y '.repeat(4000)}`;

      const published = redactedNote(note, (whole) => redactCredentials(whole));

      expect(survivingParts(String(published), secret)).toEqual([]);
    },
  );

  it('publishes no part of a URL whose @ falls past the cut, nor a token the cut went through', () => {
    const url = `could not sync: ${'x'.repeat(280)} https://admin:Hunter2Secret99@db.example.com/orders`;
    const bearer = `request failed: ${'y'.repeat(270)} Authorization: Bearer Hunter2Token99abcdef`;

    expect(describeError(new Error(url))).not.toMatch(/Hunt|admin/);
    expect(describeError(new Error(bearer))).not.toMatch(/Hunt/);
  });
});
