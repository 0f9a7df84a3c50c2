/** What a removed credential is replaced with. */
const REDACTED = '[redacted]';

/** The shortest run of base64 letters read as a key: shorter random runs are ids and names. */
const MIN_RUN = 32;
/**
 * The least Shannon entropy, in bits per character, of a run read as a
 * key: random base64 of 32 letters measures 4.0 or more (4.1 to 5.0 for
 * 99.9% of them), and so do some identifiers made of words
 * (`AbstractSingletonProxyFactoryBean2Test`, 4.16), which the share of
 * upper case letters tells apart.
 */
const MIN_ENTROPY = 4.0;
/**
 * The share of upper case among a key's letters: about half in random
 * base64 (a run of 32 falls outside these bounds once in a hundred), a
 * tenth to a fifth in identifiers made of words, whose words start with one.
 */
const MIN_UPPER_SHARE = 0.25;
const MAX_UPPER_SHARE = 0.85;
/** A path segment around a run's random part, which is kept (`api`, `v2`, `summary`, `123`). */
const PATH_WORD = /^[a-z0-9_-]{1,24}$/;
/** An integrity or digest prefix (`sha512-…`): what follows is a hash, not a key. */
const HASH_PREFIX = /^(?:sha(?:1|224|256|384|512)|md5)-/i;

/** Whether a character code is a base64 letter (standard or URL-safe): `A-Z`, `a-z`, `0-9`, `+`, `/`, `_`, `-`. */
function isBase64Letter(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 47 && code <= 57) ||
    code === 43 ||
    code === 45 ||
    code === 95
  );
}

/**
 * `text` with every long run of base64 letters that reads as random (32
 * letters or more, letters of both cases in about equal shares, entropy
 * of at least 4 bits a letter) replaced by `[redacted]`,
 * with its padding: a key or token no rule knows by its name or shape.
 * Kubernetes names and uids (lower case), hex (image digests, git shas,
 * one case) and identifiers made of words (low entropy) are kept, and so
 * are the path segments around a run's random part (`api/v2/…/summary`). One
 * pass over the text finds the runs, and each long one is read once more.
 */
export function redactHighEntropyRuns(text: string): string {
  let out = '';
  let kept = 0;
  let start = 0;
  for (let index = 0; index <= text.length; index++) {
    if (index < text.length && isBase64Letter(text.charCodeAt(index))) continue;
    if (index - start >= MIN_RUN) {
      const part = randomPart(text.slice(start, index));
      if (part) {
        let end = start + part.to;
        // The padding of a run that is random to its end.
        if (end === index) while (end < text.length && end - index < 3 && text.charCodeAt(end) === 61) end++;
        out += text.slice(kept, start + part.from) + REDACTED;
        kept = end;
      }
    }
    start = index + 1;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/**
 * Where the random part of `run` starts and ends, without the path words
 * before and after it (`api/v2/…/summary`); `undefined` if it is not random.
 */
function randomPart(run: string): { from: number; to: number } | undefined {
  if (HASH_PREFIX.test(run)) return undefined;
  let from = 0;
  for (let slash = run.indexOf('/'); slash !== -1; slash = run.indexOf('/', slash + 1)) {
    if (slash > from && !PATH_WORD.test(run.slice(from, slash))) break;
    from = slash + 1;
  }
  let to = run.length;
  for (let slash = run.lastIndexOf('/'); slash >= from; slash = run.lastIndexOf('/', slash - 1)) {
    if (slash + 1 < to && !PATH_WORD.test(run.slice(slash + 1, to))) break;
    to = slash;
  }
  return to - from >= MIN_RUN && looksRandom(run.slice(from, to)) ? { from, to } : undefined;
}

/** Whether `letters` hold both cases in random shares, with entropy of at least {@link MIN_ENTROPY}. */
function looksRandom(letters: string): boolean {
  // How often each letter occurs.
  const counts = new Uint32Array(128);
  for (let index = 0; index < letters.length; index++) counts[letters.charCodeAt(index)]++;
  const total = (from: number, to: number) => counts.subarray(from, to + 1).reduce((sum, count) => sum + count, 0);
  const upper = total(65, 90);
  const lower = total(97, 122);
  const upperShare = upper / (upper + lower);
  if (!(upperShare >= MIN_UPPER_SHARE && upperShare <= MAX_UPPER_SHARE)) return false;
  const length = letters.length;
  let entropy = 0;
  for (const count of counts) {
    if (count === 0) continue;
    const share = count / length;
    entropy -= share * Math.log2(share);
  }
  return entropy >= MIN_ENTROPY;
}
