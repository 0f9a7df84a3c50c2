// gitleaks' default rules (config/gitleaks.toml, copied as it is from gitleaks/gitleaks at
// b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b, MIT licence), and an example of what each one finds, made from the
// rule's own regex with a seeded generator, so that the test covers every kind of credential gitleaks names,
// in the shape its vendor issues, and a new copy of the file brings its new rules along.
import { readFileSync } from 'node:fs';
import randexpModule from 'randexp';

/** randexp is CommonJS: its class is the module itself to Node, and the module's `default` to TypeScript. */
const RandExp: typeof randexpModule.default =
  (randexpModule as { default?: typeof randexpModule.default }).default ??
  (randexpModule as unknown as typeof randexpModule.default);

/** One rule: its id, its pattern as JavaScript reads it, the group that is the secret, and its keywords. */
export interface GitleaksRule {
  readonly id: string;
  readonly pattern: RegExp;
  readonly secretGroup: number;
  /** gitleaks looks for a rule's pattern only in text that holds one of these. */
  readonly keywords: readonly string[];
}

const CONFIG = readFileSync(new URL('./gitleaks.toml', import.meta.url), 'utf8');

/** The rules with a regex (a rule that matches file names only has none). */
export const GITLEAKS_RULES: readonly GitleaksRule[] = CONFIG.split(/^\[\[rules\]\]$/m)
  .slice(1)
  .flatMap((block) => {
    const id = /^id = "([^"]+)"/m.exec(block)?.[1];
    const regex = /^regex = '''(.*)'''$/m.exec(block)?.[1];
    if (!id || !regex) return [];
    const secretGroup = Number(/^secretGroup = (\d+)/m.exec(block)?.[1] ?? 1);
    const listed = /^keywords = \[([\s\S]*?)\]/m.exec(block)?.[1] ?? '';
    const keywords = [...listed.matchAll(/"([^"]+)"/g)].map((match) => match[1]);
    return [{ id, pattern: fromRe2(regex), secretGroup, keywords }];
  });

/**
 * RE2's syntax as JavaScript's: `(?i)` as the `i` flag, inline
 * flag groups (`(?i:…)`, `(?-i:…)`) as plain groups (`(?s:.)` as any
 * character), `\z` as `$`, and
 * POSIX classes spelled out. The patterns are only used to make examples
 * and find their secret, never to redact.
 */
function fromRe2(source: string): RegExp {
  // A `(?i)` anywhere applies to what follows it; here, to the whole pattern.
  const flags = source.includes('(?i)') ? 'i' : '';
  const body = source
    .replaceAll('(?i)', '')
    .replaceAll('(?s:.)', String.raw`[\s\S]`)
    .replace(/\(\?-?[imsU]+:/g, '(?:')
    .replace(/\(\?P</g, '(?<')
    .replace(/\\z/g, '$')
    .replace(/\[:alnum:\]/g, 'A-Za-z0-9')
    .replace(/\[:alpha:\]/g, 'A-Za-z')
    .replace(/\[:digit:\]/g, '0-9');
  return new RegExp(body, flags);
}

/**
 * Examples written by hand, in the forms gitleaks' own tests give, for the
 * rules whose pattern makes unrealistic text when generated: an unescaped
 * `.` in a host name (`hooks.slack.com`), a free-form body (a PEM key, a
 * Secret manifest), a keyword list with a stray comma (`new-york-times,`),
 * a generic name that runs on past its keyword.
 */
const WRITTEN_EXAMPLES: Readonly<Record<string, string>> = {
  'curl-auth-user': "curl -u 'deploy:Xk9#mP2vL7qR' https://artifacts.example.com/upload",
  'freemius-secret-key': `'secret_key' => 'sk_ubb4yN3mzqGR2x8#P7r=V@;3nFp5Z'`,
  'generic-api-key': 'api_creds = "gz7q3ad73pj28lu7x9Qe"',
  'hashicorp-tf-password': 'administrator_login_password = "erz8q4_d84pj390lu"',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
  'kubernetes-secret-yaml':
    'kind: Secret\napiVersion: v1\nmetadata:\n  name: db\ndata:\n  password: c3VwZXJzZWNyZXRwYXNzd29yZDEyMw==\n',
  'microsoft-teams-webhook':
    'https://mycompany.webhook.office.com/webhookb2/7aa49aa6-7840-443d-806c-08ebe8f59966@c662313f-14fc-43a2-9a7a-d2e27f4f3478/IncomingWebhook/8592f62b50cf41b9b93ba0c0a00a0b88/eff4cd58-1bb8-4899-94de-795f656b4a18',
  'nytimes-access-token': 'NYTIMES_ACCESS_TOKEN=erz8q4d84pj390lu8zpcnyxowtx30u2a',
  'private-key':
    '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvuNMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ\n-----END PRIVATE KEY-----',
  'sidekiq-secret': 'BUNDLE_ENTERPRISE__CONTRIBSYS__COM=3d5f7a91:0b2c4e6f',
  'slack-webhook-url': 'https://hooks.slack.com/services/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',
  'snyk-api-token': 'SNYK_TOKEN="2b92409d-fb64-4ebe-a10d-e8eb2af2f261"',
};

/** The secret `text` holds by `rule`: its secret group, or the whole match when that group is too short to be one. */
function secretIn(rule: GitleaksRule, text: string): string | undefined {
  const match = rule.pattern.exec(text);
  const group = match?.[rule.secretGroup]?.trim();
  return group && group.length >= 8 ? group : match?.[0].trim();
}

/** A small seeded generator (mulberry32), so that the examples are the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * An example the rule matches, in one line of printable ASCII, with the
 * secret it holds; `undefined` when none of a few tries gives one whose
 * secret is 8 characters or more. Letters keep the case the pattern writes
 * them in (a vendor's prefix as it issues it), and an example that holds
 * none of the rule's keywords gets the first one in front, as gitleaks
 * only reports a match in text that holds one.
 */
export function exampleOf(rule: GitleaksRule, seed = 1): { text: string; secret: string } | undefined {
  const written = WRITTEN_EXAMPLES[rule.id];
  if (written !== undefined) {
    const secret = secretIn(rule, written);
    return secret ? { text: written, secret } : undefined;
  }
  const random = seeded(seed);
  const generator = new RandExp(rule.pattern);
  generator.max = 6;
  generator.ignoreCase = false;
  generator.defaultRange.subtract(0, 31);
  generator.defaultRange.subtract(127, 65535);
  generator.randInt = (from: number, to: number) => from + Math.floor(random() * (to - from + 1));
  for (let attempt = 0; attempt < 20; attempt++) {
    const generated = generator.gen().replace(/[\r\n\t\f\v]/g, ' ');
    const lower = generated.toLowerCase();
    const keyed = rule.keywords.some((keyword) => lower.includes(keyword.toLowerCase()));
    const text = keyed || !rule.keywords.length ? generated : `${rule.keywords[0]} ${generated}`;
    const secret = secretIn(rule, text);
    if (secret && secret.length >= 8) return { text, secret };
  }
  return undefined;
}
