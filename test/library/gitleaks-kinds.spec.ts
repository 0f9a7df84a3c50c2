// Every kind of credential gitleaks' default configuration names, in the shape its vendor issues (an example
// made from each rule's own regex), is redacted, as the text an error or a note would carry.
import { redactCredentials } from '../../libs/kube-events/src/text/credential-redaction.js';
import { exampleOf, GITLEAKS_RULES } from '../support/gitleaks/gitleaks-rules.js';

describe("redactCredentials on gitleaks' default rules", () => {
  it('reads every rule of the copied configuration', () => {
    expect(GITLEAKS_RULES.length).toBeGreaterThanOrEqual(200);
  });

  it.each(GITLEAKS_RULES.map((rule) => [rule.id, rule] as const))('redacts %s', (_id, rule) => {
    const example = exampleOf(rule);
    expect(example).toBeDefined();
    const { text, secret } = example!;

    expect({ text, redacted: redactCredentials(text) }).not.toEqual(
      expect.objectContaining({ redacted: expect.stringContaining(secret) }),
    );
  });
});
