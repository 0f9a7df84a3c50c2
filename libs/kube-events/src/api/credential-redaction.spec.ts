import { redactCredentials } from './credential-redaction.js';

describe('redactCredentials', () => {
  it.each([
    ['Authorization: Bearer abc.def.ghi', 'Authorization: [redacted]'],
    ['{"authorization":"Basic dXNlcjpwYXNz"}', '{"authorization":"[redacted]"}'],
    ['<th>Authorization</th><td>Bearer eyJhbGciOi.x.y</td>', '<th>Authorization</th><td>[redacted]</td>'],
    ['sent with bearer sha256~0123456789abcdef', 'sent with bearer [redacted]'],
    ['refresh failed for exec-secret-refresh-token=RT123', 'refresh failed for exec-secret-refresh-token=[redacted]'],
    ['{"password": "hunter2"}', '{"password": "[redacted]"}'],
  ])('removes the credential in %j', (text, expected) => {
    expect(redactCredentials(text)).toBe(expected);
  });

  it('removes the given secrets wherever they appear, and leaves ordinary text alone', () => {
    expect(redactCredentials('the token was 5f4dcc3b5aa765d6 (5f4dcc3b5aa765d6)', ['5f4dcc3b5aa765d6'])).toBe(
      'the token was [redacted] ([redacted])',
    );
    const status =
      'events.events.k8s.io "app.18c7" is forbidden: User "system:serviceaccount:ops:widgets" cannot create';
    expect(redactCredentials(status, ['short'])).toBe(status);
    expect(redactCredentials('a Bearer token is required')).toBe('a Bearer token is required');
  });
});
