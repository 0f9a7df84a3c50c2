import { MAX_NOTE_BYTES } from '../kube-events.constants.js';
import { redactedNote, truncateNote } from './note-truncation.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('truncateNote', () => {
  it('sends a note within the limit unchanged, up to exactly 1024 bytes', () => {
    const exact = 'é'.repeat(MAX_NOTE_BYTES / 2);
    expect(bytes(exact)).toBe(MAX_NOTE_BYTES);
    expect(truncateNote(exact)).toBe(exact);
    expect(truncateNote('short')).toBe('short');
  });

  it.each([
    ['1-byte', 'a'],
    ['2-byte', 'é'],
    ['3-byte', '€'],
    ['4-byte (surrogate pair)', '😀'],
  ])('cuts %s characters on a character boundary and appends ...', (_label, char) => {
    const note = `x${char.repeat(2000)}`;
    const cut = truncateNote(note);
    expect(cut.endsWith('...')).toBe(true);
    expect(bytes(cut)).toBeLessThanOrEqual(MAX_NOTE_BYTES);
    const kept = cut.slice(0, -3);
    expect(note.startsWith(kept)).toBe(true);
    expect(kept).not.toContain('\uFFFD');
    // As much as fits: one more character would not.
    expect(bytes(kept) + bytes(char)).toBeGreaterThan(MAX_NOTE_BYTES - 3);
  });

  it('cuts a note one byte over the limit', () => {
    const note = 'a'.repeat(MAX_NOTE_BYTES + 1);
    expect(truncateNote(note)).toBe(`${'a'.repeat(MAX_NOTE_BYTES - 3)}...`);
  });
});

describe('redactedNote', () => {
  const redactPasswords = (note: string) => note.replace(/password=\S+/g, 'password=[redacted]');

  test('redacts a note within the limit and leaves it otherwise unchanged', () => {
    expect(redactedNote('login failed: password=hunter2', redactPasswords)).toBe('login failed: password=[redacted]');
  });

  test('redacts only the start of a huge note, which is cut anyway', () => {
    const seen: number[] = [];
    const note = `password=hunter2 ${'x'.repeat(10 * 1024 * 1024)}`;
    const written = redactedNote(note, (text) => {
      seen.push(text.length);
      return redactPasswords(text);
    });
    // The window ends before the word it cuts (of at most 256 characters), whose rest may be a credential's.
    expect(seen).toEqual([8 * MAX_NOTE_BYTES - 256]);
    expect(written).toMatch(/^password=\[redacted\] x+\.\.\.$/);
    expect(Buffer.byteLength(written as string)).toBeLessThanOrEqual(MAX_NOTE_BYTES);
  });

  test('marks a huge note cut even when redaction leaves its start within the limit', () => {
    const note = `password=${'s'.repeat(20_000)}`;
    expect(redactedNote(note, redactPasswords)).toBe('password=[redacted]...');
  });

  test("leaves out the token the 8 KiB window cuts, so that a credential's start too short to recognise is not kept", () => {
    const note = `${'word '.repeat(1638)}ghp_R2d4F6h8J0l2N4p6R8t0V2x4Z6b8D0f2H4j6 ${'y'.repeat(9000)}`;
    const seen: string[] = [];
    redactedNote(note, (text) => {
      seen.push(text);
      return text;
    });

    expect(seen[0].endsWith('word ')).toBe(true);
  });

  test('returns what the redaction returned when it is not a string', () => {
    expect(redactedNote('a note', () => 42 as unknown as string)).toBe(42);
  });
});
