import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { User } from '@kubernetes/client-node';
import { TokenFileAuthenticator } from './token-file-authenticator.js';

describe('TokenFileAuthenticator', () => {
  let dir: string;
  let tokenFile: string;
  let user: User;
  const authorization = async (authenticator: TokenFileAuthenticator) => {
    const options: { headers?: Record<string, string> } = {};
    await authenticator.applyAuthentication(user, options);
    return options.headers?.Authorization;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kube-events-token-file-'));
    tokenFile = join(dir, 'token');
    user = { name: 'u', authProvider: { name: 'tokenFile', config: { tokenFile } } };
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("forgets a token after a refusal of a request made after it was read, and keeps one read since (client-go's ResetTokenOlderThan)", async () => {
    const authenticator = new TokenFileAuthenticator();
    await writeFile(tokenFile, 'token-1\n');
    const refusedRequestMadeBefore = Date.now() - 1;
    expect(await authorization(authenticator)).toBe('Bearer token-1');

    await writeFile(tokenFile, 'token-2\n');
    // A request whose credentials were made before this token was read was refused: the token is kept.
    authenticator.forgetReadBefore(refusedRequestMadeBefore);
    expect(await authorization(authenticator)).toBe('Bearer token-1');
    // One made with this token was refused: the file is read again.
    authenticator.forgetReadBefore(Date.now());
    expect(await authorization(authenticator)).toBe('Bearer token-2');
  });

  it('fails when the file is gone after a refusal, rather than send the refused token again', async () => {
    const authenticator = new TokenFileAuthenticator();
    await writeFile(tokenFile, 'token-1');
    expect(await authorization(authenticator)).toBe('Bearer token-1');

    await rm(tokenFile);
    authenticator.forgetReadBefore(Date.now());
    await expect(authorization(authenticator)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
