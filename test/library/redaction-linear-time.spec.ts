// Redaction takes time linear in its input whatever the input holds (SPEC
// §13): crafted text repeated to 4× the size takes about 4× the time. A
// rule that re-reads an unbounded stretch at every position takes 16×.
// The bound (10×) is on a ratio of two sizes measured side by side, in
// interleaved runs after a warm-up, the least of five each, in CPU time,
// so a loaded machine moves both alike.
import { fc, test } from '@fast-check/jest';
import { redactCredentials } from '../../libs/kube-events/src/text/credential-redaction.js';
import { CRAFTED_PIECES, KNOWN_CRAFTED_TEXTS, repeatedTo } from '../support/crafted-text.js';

const SMALL = 16 * 1024;
const LARGE = 64 * 1024;
const LINEAR_BOUND = 10;

/** The process' CPU time redacting `text` takes, in ms: on a machine shared with other work, the time it was not running is left out. */
function millis(text: string): number {
  const started = process.cpuUsage();
  redactCredentials(text);
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
}

/** How much longer 4× the text takes; a floor of 0.2 ms keeps timer noise on tiny times out of the ratio. */
function growth(build: (size: number) => string): number {
  const small = build(SMALL);
  const large = build(LARGE);
  // Warmed up first, so that compiling the rules is in neither.
  millis(small);
  let leastSmall = Infinity;
  let leastLarge = Infinity;
  for (let run = 0; run < 5; run++) {
    leastSmall = Math.min(leastSmall, millis(small));
    leastLarge = Math.min(leastLarge, millis(large));
  }
  return leastLarge / Math.max(0.2, leastSmall);
}

describe('redaction time', () => {
  it.each(Object.entries(KNOWN_CRAFTED_TEXTS))('grows linearly for %s', (_, build) => {
    expect(growth(build)).toBeLessThan(LINEAR_BOUND);
  });

  test.prop([fc.array(fc.constantFrom(...CRAFTED_PIECES), { minLength: 1, maxLength: 12 })], { numRuns: 40 })(
    'grows linearly for text repeated from the rules’ building blocks',
    (pieces) => {
      const unit = pieces.join('');
      expect(growth((size) => repeatedTo(unit, size))).toBeLessThan(LINEAR_BOUND);
    },
  );

  it('still removes a credential behind crafted text', () => {
    const text = `${'\\'.repeat(20_000)} password="hunter2-S3CRET" ${'a.'.repeat(10_000)}`;
    expect(redactCredentials(text)).not.toContain('hunter2');
  });
});
