import { MAX_NOTE_BYTES } from '../kube-events.constants.js';
import { truncateNote } from './note-truncation.js';

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
