/**
 * Text built from the redaction rules' own building blocks (quotes and
 * their escapes, separators, credential words, URL pieces, token
 * prefixes), repeated to a size: what a hostile server or caller would
 * send to make a backtracking rule slow. Shared by the linear-time
 * property test and the redaction benchmark.
 */
export const CRAFTED_PIECES: readonly string[] = [
  '\\',
  '\\\\',
  '"',
  "'",
  '\\"',
  ':',
  '=',
  ' ',
  '.',
  '-',
  '_',
  '@',
  '/',
  '//',
  '://',
  ';',
  ',',
  '&',
  '?',
  'a',
  'token',
  'password',
  'pass',
  'secret',
  'api_key',
  'Authorization',
  'Bearer ',
  'Basic ',
  'cookie',
  '--token ',
  'https',
  'eyJ',
  'ghp_',
  'AKIA',
  'sk-',
  'adafruit',
  'kind: Secret',
  'data:',
  '-u ',
  'webhook.office.com/webhookb2/',
  '-----BEGIN PRIVATE KEY-----',
  '<td>',
  'x'.repeat(40),
];

/** The cases named when the rules were found slow, each repeated to `size` characters. */
export const KNOWN_CRAFTED_TEXTS: Readonly<Record<string, (size: number) => string>> = {
  'token: and a quote behind a run of backslashes': (size) =>
    `token: ${'\\'.repeat(size / 4)}'${'\\'.repeat(size - size / 4 - 8)}`,
  'password= and a quote behind backslashes': (size) =>
    `password=${'\\'.repeat(size / 4)}"${'\\'.repeat(size - size / 4 - 10)}`,
  'a. repeated': (size) => 'a.'.repeat(size / 2),
  '=a: repeated': (size) => '=a:'.repeat(Math.floor(size / 3)),
  '=a: repeated, then an @ and a host': (size) => `${'=a:'.repeat(Math.floor((size - 5) / 3))}@host`,
  'a@ repeated': (size) => 'a@'.repeat(size / 2),
  'a:b@ repeated': (size) => 'a:b@'.repeat(size / 4),
  'a vendor name repeated': (size) => 'adafruit '.repeat(Math.floor(size / 9)),
  'pass:x repeated': (size) => 'pass:x '.repeat(Math.floor(size / 7)),
  ' -u repeated': (size) => ' -u '.repeat(size / 4),
  'kind: Secret repeated': (size) => 'kind: Secret data: '.repeat(Math.floor(size / 19)),
};

/** `unit` repeated to `size` characters. */
export function repeatedTo(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / Math.max(1, unit.length))).slice(0, size);
}

/** A plain note of `size` characters: the baseline crafted text is measured against. */
export function plainText(size: number): string {
  return repeatedTo('NotFound: configmaps "source-missing" not found while mirroring widget default/w1; ', size);
}
