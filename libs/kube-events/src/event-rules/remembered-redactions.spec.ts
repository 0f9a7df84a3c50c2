import { redactCredentials } from '../text/credential-redaction.js';
import { RememberedRedactions } from './remembered-redactions.js';

describe('RememberedRedactions', () => {
  const notes = [
    'POST https://bot:hunter2@hooks.example.com/notify failed',
    'Authorization: Bearer abc.def.ghi',
    'source ConfigMap default/app not found',
    `password=${'x'.repeat(2_000)} and more`,
  ];

  it('redacts as redactCredentials does, a note seen before included', () => {
    const redactions = new RememberedRedactions();
    for (let round = 0; round < 3; round++)
      for (const note of notes) expect(redactions.redact(note)).toBe(redactCredentials(note));
  });

  it('still redacts each note once it has seen more than it remembers', () => {
    const redactions = new RememberedRedactions();
    for (let i = 0; i < 1_000; i++) {
      const note = `token=secret-${i} for widget-${i}`;
      expect(redactions.redact(note)).toBe(`token=[redacted] for widget-${i}`);
    }
    expect(redactions.redact(notes[0])).toBe('POST https://[redacted]@hooks.example.com/notify failed');
  });
});
