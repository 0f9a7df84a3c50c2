import { PublishCredentialError } from '../errors.js';
import { sendableHeaders, trimSpace } from './credential-headers.js';

describe('credential headers', () => {
  it.each([
    ['a trailing newline', 'token\n', 'token'],
    ['CRLF and tabs around', '\t\r\ntoken\r\n', 'token'],
    ["Go's Unicode spaces (NEL, NBSP, ideographic space)", '\u0085\u00a0token\u3000', 'token'],
    ['white space inside, which stays', 'to ken', 'to ken'],
    ['nothing but white space', ' \n\t ', ''],
  ])("trims %s as Go's strings.TrimSpace does", (_, text, trimmed) => {
    expect(trimSpace(text)).toBe(trimmed);
  });

  it('trims a bearer token of the white space around it, whatever the header name case', () => {
    expect(sendableHeaders({ Authorization: 'Bearer token\n' })).toEqual({ Authorization: 'Bearer token' });
    expect(sendableHeaders({ authorization: 'bearer  token ' })).toEqual({ authorization: 'bearer token' });
  });

  it('refuses a header with a line break inside, naming it and not its value', () => {
    const refuse = () => sendableHeaders({ Authorization: 'Bearer first\nsecret-second-line' });
    expect(refuse).toThrow(PublishCredentialError);
    expect(refuse).toThrow(/invalid "Authorization" header/);
    expect(refuse).not.toThrow(/secret-second-line/);
  });

  it('refuses a header whose name HTTP does not allow', () => {
    expect(() => sendableHeaders({ 'X-Token\n': 'value' })).toThrow(/invalid "X-Token\\n" header/);
  });

  it('refuses headers over the 1 MiB the API server reads', () => {
    expect(() => sendableHeaders({ Authorization: `Bearer ${'a'.repeat(1024 * 1024)}` })).toThrow(
      /make 1048600 bytes of headers, more than the 1048576 the API server accepts/,
    );
  });
});
