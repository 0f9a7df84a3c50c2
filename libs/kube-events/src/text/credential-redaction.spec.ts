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

describe('redactCredentials on notes', () => {
  const jwt =
    'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0.c2lnbmF0dXJlLWJ5dGVz';

  it.each([
    [
      'the userinfo of a URL, as Node’s fetch quotes it',
      'Request cannot be constructed from a URL that includes credentials: https://deploy-bot:hunter2-S3CRET@hooks.example.com/notify',
      'Request cannot be constructed from a URL that includes credentials: https://[redacted]@hooks.example.com/notify',
    ],
    [
      'a token as the user of a URL',
      'git clone https://ghs_abc123@github.com/org/repo',
      'git clone https://[redacted]@github.com/org/repo',
    ],
    ['a password holding an @', 'redis://default:p@ss@cache:6379/0 refused', 'redis://[redacted]@cache:6379/0 refused'],
    [
      'an Authorization header',
      'sent Authorization: Basic dXNlcjpwYXNzd29yZA== to the proxy',
      'sent Authorization: [redacted] to the proxy',
    ],
    ['a Proxy-Authorization header', 'Proxy-Authorization: Bearer abcdefgh12345', 'Proxy-Authorization: [redacted]'],
    ['a Bearer token in prose', 'the webhook refused bearer 0123456789abcdef', 'the webhook refused bearer [redacted]'],
    ['a cookie', 'Cookie: session=abc123; csrftoken=def456', 'Cookie: [redacted]'],
    [
      'a token in a query',
      'GET https://api.example.com/v1/items?limit=5&access_token=ya29.a0Af&page=2 failed',
      'GET https://api.example.com/v1/items?limit=5&access_token=[redacted]&page=2 failed',
    ],
    [
      'an API key in a query',
      'https://maps.example.com/geo?key=k-81723&q=berlin',
      'https://maps.example.com/geo?key=[redacted]&q=berlin',
    ],
    [
      'a presigned URL',
      'PUT https://bucket.s3.amazonaws.com/o?X-Amz-Credential=AKIDEXAMPLE%2F2026&X-Amz-Signature=9f2c1e',
      'PUT https://bucket.s3.amazonaws.com/o?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]',
    ],
    [
      'an Azure SAS signature',
      'https://acct.blob.core.windows.net/c/b?sv=2024-01-01&sig=Zm9vYmFy%3D',
      'https://acct.blob.core.windows.net/c/b?sv=2024-01-01&sig=[redacted]',
    ],
    [
      'an OAuth code',
      'https://app.example.com/callback?code=4/0AbCdEf&state=xyz',
      'https://app.example.com/callback?code=[redacted]&state=xyz',
    ],
    ['a password field', 'connect failed: password=hunter2 user=app', 'connect failed: password=[redacted] user=app'],
    [
      'an environment variable',
      'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG is invalid',
      'AWS_SECRET_ACCESS_KEY=[redacted] is invalid',
    ],
    ['an API key header', 'X-Api-Key: 8a7b6c5d4e3f', 'X-Api-Key: [redacted]'],
    [
      'a JSON field',
      '{"client_secret":"s3cr3t","client_id":"app"}',
      '{"client_secret":"[redacted]","client_id":"app"}',
    ],
    [
      'a ServiceAccount token (a JSON Web Token)',
      `token review failed for ${jwt}`,
      'token review failed for [redacted]',
    ],
    [
      'a PEM private key',
      'bad key -----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY----- given',
      'bad key [redacted] given',
    ],
    ['a GitHub token', 'push refused for ghp_0123456789abcdefghijABCDEFGHIJ012345', 'push refused for [redacted]'],
    ['a Slack token', 'slack: invalid_auth for xoxb-1234567890-abcdefghij', 'slack: invalid_auth for [redacted]'],
    [
      'an AWS access key id',
      'The AWS Access Key Id AKIAIOSFODNN7EXAMPLE does not exist',
      'The AWS Access Key Id [redacted] does not exist',
    ],
    [
      'an OpenShift token',
      'whoami failed with sha256~AbCdEfGhIjKlMnOpQrStUvWxYz012345',
      'whoami failed with [redacted]',
    ],
  ])('removes %s', (_kind, text, expected) => {
    expect(redactCredentials(text)).toBe(expected);
  });

  it.each([
    'NotFound: configmaps "source-missing" not found',
    'fetch failed: connect ECONNREFUSED 127.0.0.1:6443',
    'Forbidden: secrets "db" is forbidden: User "system:serviceaccount:demo:mirror" cannot get resource "secrets"',
    'Invalid: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"',
    'GET https://api.example.com/v1/items?limit=5&page=2 answered HTTP 502 Bad Gateway',
    'waiting for pod web-0 (attempt 3, 1200 ms)',
    'the server asked for a Bearer token',
    'mail ops@example.com about https://example.com/a@b',
  ])('leaves %j as it is', (text) => {
    expect(redactCredentials(text)).toBe(text);
  });

  it('is idempotent', () => {
    const once = redactCredentials(`https://u:p@h/x?token=t Authorization: Bearer ${jwt} password=x`);

    expect(redactCredentials(once)).toBe(once);
  });
});
