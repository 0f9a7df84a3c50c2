import { describeError, redactCredentials } from 'nestjs-kube-events';
import { CREDENTIAL_FORMS, survivingParts } from '../support/credential-forms.js';
import { CONTEXT_CREDENTIAL_FORMS, NOT_CREDENTIALS } from '../support/context-credential-forms.js';

/** The forms known by their shape or a name, and those known only by their context. */
const FORMS = [...CREDENTIAL_FORMS, ...CONTEXT_CREDENTIAL_FORMS];

describe('redactCredentials on the forms credentials come in', () => {
  it.each(FORMS.map((form) => [form.form, form] as const))(
    'removes %s whole and keeps the text around it',
    (_form, { text, secret, kept }) => {
      const redacted = redactCredentials(text);

      expect({ redacted, surviving: survivingParts(redacted, secret) }).toEqual({ redacted, surviving: [] });
      for (const part of kept) expect(redacted).toContain(part);
      expect(redacted).toContain('[redacted]');
    },
  );

  it.each(FORMS.map((form) => [form.form, form] as const))(
    'describeError removes %s from a message',
    (_form, { text, secret }) => {
      const described = describeError(new Error(text), { maxBytes: 4096 });

      expect(survivingParts(described, secret)).toEqual([]);
    },
  );

  it.each(NOT_CREDENTIALS.map(({ kind, text }) => [kind, text] as const))('leaves %s as it is', (_kind, text) => {
    expect(redactCredentials(text)).toBe(text);
  });

  it('leaves alone what only looks like a credential', () => {
    for (const text of [
      'pulled docker.io/library/nginx:1.25@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31',
      'image nginx:1.25@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31 is cached',
      'tests passed: 12, bypass=false, compass: north',
      'the token expired at 12:00; ask for a new token',
      'secretName: tls-cert is missing, tokens: 3',
    ]) {
      expect(redactCredentials(text)).toBe(text);
    }
  });
});
