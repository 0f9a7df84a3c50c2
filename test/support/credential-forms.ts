/**
 * Credentials in the forms real error messages, logs and echoed requests
 * carry them, with realistic values (none of them valid anywhere). Each
 * form names the secret that must not survive in any part, and text
 * around it that must stay readable.
 */
export interface CredentialForm {
  readonly form: string;
  /** The text as an error or a note would show it. */
  readonly text: string;
  /** What must not survive, in any part of 4 characters or more. */
  readonly secret: string;
  /** Text around the credential that redaction must leave as it is. */
  readonly kept: readonly string[];
}

const jwt =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6Ik1YQ0ZfNk1pIn0.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50Iiwic3ViIjoic3lzdGVtOnNlcnZpY2VhY2NvdW50OmRlbW86bWlycm9yIn0.Q2xhaW1zU2lnbmF0dXJlQnl0ZXNIZXJlMTIzNDU2Nzg5MA';
const pemBody =
  'MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MZ1l2zQRh3qk\nq3Ox7gYdL7XrQmS9Tc7dAWvC6L4u4bhvUqH9rTi2Y7kC0Ew2RMm4dG6zFJx';

export const CREDENTIAL_FORMS: readonly CredentialForm[] = [
  {
    form: 'an Authorization header with the Bearer scheme',
    text: 'proxy refused: Authorization: Bearer 8f14e45fceea167a5a36dedd4bea2543 (retrying)',
    secret: '8f14e45fceea167a5a36dedd4bea2543',
    kept: ['proxy refused: Authorization:', '(retrying)'],
  },
  {
    form: 'an Authorization header with the Token scheme',
    text: 'GitHub answered 401 for Authorization: Token 9c1185a5c5e9fc54612808977ee8f548b2258d31 on /repos',
    secret: '9c1185a5c5e9fc54612808977ee8f548b2258d31',
    kept: ['GitHub answered 401 for Authorization:', 'on /repos'],
  },
  {
    form: 'an Authorization header with the Negotiate scheme',
    text: 'Authorization: Negotiate YIIGhgYGKwYBBQUCoIIGejCCBnagMDAuBgkqhkiC9xIBAgIGCSqGSIb3EgECAgYKKwYBBAGCNwICHg refused',
    secret: 'YIIGhgYGKwYBBQUCoIIGejCCBnagMDAuBgkqhkiC9xIBAgIGCSqGSIb3EgECAgYKKwYBBAGCNwICHg',
    kept: ['Authorization:', 'refused'],
  },
  {
    form: 'an AWS SigV4 Authorization header',
    text:
      'S3 said SignatureDoesNotMatch to Authorization: AWS4-HMAC-SHA256 Credential=AKIAZ7QW3RT5YU2PLM4N/20260101/eu-west-1/s3/aws4_request, ' +
      'SignedHeaders=host;x-amz-date, Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024 for PUT /bucket',
    secret: 'fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024 AKIAZ7QW3RT5YU2PLM4N',
    kept: ['S3 said SignatureDoesNotMatch to Authorization:', 'for PUT /bucket'],
  },
  {
    form: 'a Digest Authorization header',
    text: 'Authorization: Digest username="mirror", realm="ops", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", response="6629fae49393a05397450978507c4ef1" was refused',
    secret: '6629fae49393a05397450978507c4ef1 dcd98b7102dd2f0e8b11d0f600bfb0c093',
    kept: ['Authorization:', 'was refused'],
  },
  {
    form: 'an Authorization header in escaped JSON',
    text: 'request {\\"headers\\":{\\"Authorization\\":\\"Bearer Tq9rV2xK7mPz4Lw8Ns3Yb6Hc\\"}} failed',
    secret: 'Tq9rV2xK7mPz4Lw8Ns3Yb6Hc',
    kept: ['request {\\"headers\\":{\\"Authorization\\":', 'failed'],
  },
  {
    form: 'the userinfo of a URL',
    text: 'dial failed for postgres://app_user:Pw9Xq4Lt7Zr2@db.internal:5432/orders (timeout)',
    secret: 'Pw9Xq4Lt7Zr2 app_user',
    kept: ['dial failed for postgres://', '@db.internal:5432/orders (timeout)'],
  },
  {
    form: 'userinfo without a scheme',
    text: 'could not log in as admin:Hunter2Secret99@registry.example.com:5000 to pull',
    secret: 'Hunter2Secret99',
    kept: ['could not log in as', '@registry.example.com:5000 to pull'],
  },
  {
    form: 'a quoted password with spaces',
    text: 'config rejected: password="correct horse battery staple" is too common',
    secret: 'correct horse battery staple',
    kept: ['config rejected: password="', '" is too common'],
  },
  {
    form: 'a JSON-escaped password',
    text: 'body was {\\"user\\":\\"svc\\",\\"password\\":\\"Wq7 zK9mN3pX\\"} (400)',
    secret: 'Wq7 zK9mN3pX',
    kept: ['body was {\\"user\\":\\"svc\\",\\"password\\":\\"', '\\"} (400)'],
  },
  {
    form: 'a JSON password',
    text: 'payload {"username": "svc", "password": "Zx8 Vb4 Nm2 Qw6"} rejected',
    secret: 'Zx8 Vb4 Nm2 Qw6',
    kept: ['payload {"username": "svc", "password": "', '"} rejected'],
  },
  {
    form: "a kubeconfig's client-key-data",
    text: 'kubeconfig user: client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVBMFozVlM1SkpjZHMzeGZu is not a key',
    secret: 'LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVBMFozVlM1SkpjZHMzeGZu',
    kept: ['kubeconfig user: client-key-data:', 'is not a key'],
  },
  {
    form: "a kubeconfig's token",
    text: 'users: - name: ci user: token: 7f3kq9zxw2mvl8rb4ncj6tdh1ysp05ae in ~/.kube/config',
    secret: '7f3kq9zxw2mvl8rb4ncj6tdh1ysp05ae',
    kept: ['users: - name: ci user: token:', 'in ~/.kube/config'],
  },
  {
    form: "an auth-provider's secrets",
    text: 'auth-provider config: client-secret: GOCSPX-4fR7tY1uI9oP3aS6dF8gH2jK, refresh-token: 1//0gLmN4pQ7rS2tU5vW8xY1zA3bC6dE9f',
    secret: '4fR7tY1uI9oP3aS6dF8gH2jK 0gLmN4pQ7rS2tU5vW8xY1zA3bC6dE9f',
    kept: ['auth-provider config: client-secret:', 'refresh-token:'],
  },
  {
    form: "a docker config's auth",
    text: 'dockerconfigjson {"auths":{"ghcr.io":{"auth":"bWlycm9yOlRxOXJWMnhLN21QejRMdzg="}}} not accepted',
    secret: 'bWlycm9yOlRxOXJWMnhLN21QejRMdzg=',
    kept: ['dockerconfigjson {"auths":{"ghcr.io":{"auth":"', '"}}} not accepted'],
  },
  {
    form: 'an Azure storage connection string',
    text:
      'blob upload failed: DefaultEndpointsProtocol=https;AccountName=opsbackup;' +
      'AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net',
    secret: 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==',
    kept: [
      'blob upload failed: DefaultEndpointsProtocol=https;AccountName=opsbackup;AccountKey=',
      ';EndpointSuffix=core.windows.net',
    ],
  },
  {
    form: 'an Azure Service Bus SharedAccessKey',
    text: 'Endpoint=sb://ops.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=Q7w9Er2Ty4Ui6Op8As0Df3Gh5Jk7Lz1Xc3Vb5Nm7Mq= was refused',
    secret: 'Q7w9Er2Ty4Ui6Op8As0Df3Gh5Jk7Lz1Xc3Vb5Nm7Mq=',
    kept: ['Endpoint=sb://ops.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=', 'was refused'],
  },
  {
    form: 'an environment assignment DB_PASS',
    text: 'env DB_HOST=db DB_PASS=Pq8Lm3Nx7Rv2 DB_PORT=5432 rejected',
    secret: 'Pq8Lm3Nx7Rv2',
    kept: ['env DB_HOST=db DB_PASS=', 'DB_PORT=5432 rejected'],
  },
  {
    form: 'an environment assignment MYSQL_PWD',
    text: 'mysql exited 1 with MYSQL_PWD=Tz5Kw8Jq2Bn6 set',
    secret: 'Tz5Kw8Jq2Bn6',
    kept: ['mysql exited 1 with MYSQL_PWD=', 'set'],
  },
  {
    form: 'an environment assignment PGPASSWORD',
    text: 'PGPASSWORD=Yh4Rf7Uj1Mk9 psql -h db failed',
    secret: 'Yh4Rf7Uj1Mk9',
    kept: ['PGPASSWORD=', 'psql -h db failed'],
  },
  {
    form: 'a --password flag',
    text: 'command `mirrorctl --user svc --password Gb3Vn8Hm2Jk5 sync` exited 2',
    secret: 'Gb3Vn8Hm2Jk5',
    kept: ['command `mirrorctl --user svc --password', 'sync` exited 2'],
  },
  {
    form: 'a --token= flag',
    text: 'exec: kubectl --token=Xs9Cd4Fv7Bg2Nh5Mj8 get pods: exit status 1',
    secret: 'Xs9Cd4Fv7Bg2Nh5Mj8',
    kept: ['exec: kubectl --token=', 'get pods: exit status 1'],
  },
  {
    form: 'a passphrase',
    text: 'unlock failed: passphrase=Lk8Jh5Gf2Ds9 for key.pem',
    secret: 'Lk8Jh5Gf2Ds9',
    kept: ['unlock failed: passphrase=', 'for key.pem'],
  },
  {
    form: 'credentials:',
    text: 'helm values credentials: svc-Rt6Yu9Io3Pa7 are wrong',
    secret: 'svc-Rt6Yu9Io3Pa7',
    kept: ['helm values credentials:', 'are wrong'],
  },
  {
    form: 'an ADO.NET connection string',
    text: 'SqlException: Server=sql01;Database=orders;User Id=svc;Password=Qa1 Ws2 Ed3;Encrypt=true login failed',
    secret: 'Qa1 Ws2 Ed3',
    kept: ['SqlException: Server=sql01;Database=orders;User Id=svc;Password=', ';Encrypt=true login failed'],
  },
  {
    form: 'a Stripe secret key',
    text: 'stripe: invalid key sk_live_51Hx7QwErTyUiOpAsDfGhJkLz0123456789 used',
    secret: 'sk_live_51Hx7QwErTyUiOpAsDfGhJkLz0123456789',
    kept: ['stripe: invalid key', 'used'],
  },
  {
    form: 'a Stripe restricted key',
    text: 'stripe refused rk_live_51Hx7QwErTyUiOpAsDfGhJkLz9876543210 for refunds',
    secret: 'rk_live_51Hx7QwErTyUiOpAsDfGhJkLz9876543210',
    kept: ['stripe refused', 'for refunds'],
  },
  {
    form: 'an npm token',
    text: 'npm ERR! 403 with npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y from registry',
    secret: 'npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y',
    kept: ['npm ERR! 403 with', 'from registry'],
  },
  {
    form: 'a PyPI token',
    text: 'twine upload failed with pypi-AgEIcHlwaS5vcmcCJDk3YjM5ZjFlLTk0YTMtNGQyZi1hMWUwLTU0ZGM1Y2E3OGY1MwACKlsz (403)',
    secret: 'pypi-AgEIcHlwaS5vcmcCJDk3YjM5ZjFlLTk0YTMtNGQyZi1hMWUwLTU0ZGM1Y2E3OGY1MwACKlsz',
    kept: ['twine upload failed with', '(403)'],
  },
  {
    form: 'a GitHub token',
    text: 'push refused for ghp_R2d4F6h8J0l2N4p6R8t0V2x4Z6b8D0f2H4j6 on main',
    secret: 'ghp_R2d4F6h8J0l2N4p6R8t0V2x4Z6b8D0f2H4j6',
    kept: ['push refused for', 'on main'],
  },
  {
    form: 'a GitLab token',
    text: 'gitlab 401 for glpat-x9Yz8Wv7Ut6Sr5Qp4On3M while cloning',
    secret: 'glpat-x9Yz8Wv7Ut6Sr5Qp4On3M',
    kept: ['gitlab 401 for', 'while cloning'],
  },
  {
    form: 'a Slack token',
    text: 'slack: invalid_auth for xoxb-2048604113-5829467104512-Ab9Cd8Ef7Gh6Ij5Kl4Mn3Op2',
    secret: 'xoxb-2048604113-5829467104512-Ab9Cd8Ef7Gh6Ij5Kl4Mn3Op2',
    kept: ['slack: invalid_auth for'],
  },
  {
    form: 'a Slack webhook',
    text: 'POST https://hooks.slack.com/services/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 answered 404',
    secret: 'pQ8rS1tU4vW7xY0zA3bC6dE9',
    kept: ['POST https://hooks.slack.com/services/', 'answered 404'],
  },
  {
    form: 'an AWS access key and secret',
    text: 'aws: InvalidClientTokenId for AKIAZ7QW3RT5YU2PLM4N with aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY',
    secret: 'AKIAZ7QW3RT5YU2PLM4N wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY',
    kept: ['aws: InvalidClientTokenId for', 'with aws_secret_access_key='],
  },
  {
    form: 'a Google API key',
    text: 'maps quota exceeded for AIzaSyD4rT7yU0iO3pA6sD9fG2hJ5kL8zX1cV4b today',
    secret: 'AIzaSyD4rT7yU0iO3pA6sD9fG2hJ5kL8zX1cV4b',
    kept: ['maps quota exceeded for', 'today'],
  },
  {
    form: 'an Azure AD client secret',
    text: 'AADSTS7000215: invalid secret Xk28Q~pL3mN7vB1cZ9xR5tY2uI8oP4aS6dF0gH provided',
    secret: 'Xk28Q~pL3mN7vB1cZ9xR5tY2uI8oP4aS6dF0gH',
    kept: ['AADSTS7000215: invalid secret', 'provided'],
  },
  {
    form: 'a Docker Hub token',
    text: 'docker login: unauthorized for dckr_pat_Zq3Xw6Ec9Rv2Tb5Yn8Um1Io4Pa7 (pull)',
    secret: 'dckr_pat_Zq3Xw6Ec9Rv2Tb5Yn8Um1Io4Pa7',
    kept: ['docker login: unauthorized for', '(pull)'],
  },
  {
    form: 'an OpenAI-style key',
    text: 'completion failed: incorrect API key provided: sk-proj-Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef. see docs',
    secret: 'sk-proj-Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef',
    kept: ['completion failed: incorrect API key provided:', 'see docs'],
  },
  {
    form: 'a Twilio API key',
    text: 'twilio 20003 for SK2a4c6e8f0a2c4e6f8a0c2e4f6a8c0e2f4 on send',
    secret: 'SK2a4c6e8f0a2c4e6f8a0c2e4f6a8c0e2f4',
    kept: ['twilio 20003 for', 'on send'],
  },
  {
    form: 'a SendGrid key',
    text: 'sendgrid 401 with SG.Nq7Rt2Yw5Ue8Io1Pa4Sd7F.Gh0Jk3Lz6Xc9Vb2Nm5Qw8Er1Ty4Ui7Op0As3Df6Gh9Jk when mailing',
    secret: 'SG.Nq7Rt2Yw5Ue8Io1Pa4Sd7F.Gh0Jk3Lz6Xc9Vb2Nm5Qw8Er1Ty4Ui7Op0As3Df6Gh9Jk',
    kept: ['sendgrid 401 with', 'when mailing'],
  },
  {
    form: 'a Shopify token',
    text: 'shopify 401 for 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 on orders',
    secret: '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',
    kept: ['shopify 401 for', 'on orders'],
  },
  {
    form: 'a ServiceAccount token (a JSON Web Token)',
    text: `TokenReview failed for ${jwt} at 12:00`,
    secret: jwt,
    kept: ['TokenReview failed for', 'at 12:00'],
  },
  {
    form: 'a PEM private key',
    text: `bad key: -----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY----- in secret tls`,
    secret: pemBody,
    kept: ['bad key:', 'in secret tls'],
  },
  {
    form: 'a token in a query',
    text: 'GET https://api.example.com/v1/items?limit=5&access_token=ya29.a0AfB_byC4dE7fG0hJ3kL6mN9pQ2&page=2 failed',
    secret: 'ya29.a0AfB_byC4dE7fG0hJ3kL6mN9pQ2',
    kept: ['GET https://api.example.com/v1/items?limit=5&access_token=', '&page=2 failed'],
  },
];

/** The parts of `secret` (each of its words, 4 characters at a time) that must not appear where it was removed. */
export function secretParts(secret: string, length = 4): string[] {
  const parts = new Set<string>();
  for (const word of secret.split(/\s+/)) {
    for (let start = 0; start + length <= word.length; start++) parts.add(word.slice(start, start + length));
  }
  return [...parts];
}

/** The parts of `secret` that `text` shows. */
export function survivingParts(text: string, secret: string): string[] {
  return secretParts(secret).filter((part) => text.includes(part));
}
