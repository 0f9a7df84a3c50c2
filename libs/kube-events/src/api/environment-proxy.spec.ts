import { proxyFromEnvironment, usesProxy } from './environment-proxy.js';

// The table of Go's own test of NO_PROXY (golang.org/x/net/http/httpproxy, TestUseProxy), every host on port 80.
const GO_NO_PROXY =
  'foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, ' +
  '2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64';
const GO_USE_PROXY_TESTS: [string, boolean][] = [
  ['localhost', false],
  ['127.0.0.1', false],
  ['127.0.0.2', false],
  ['::1', false],
  ['::2', true],
  ['192.168.1.1', false],
  ['192.168.1.2', true],
  ['192.168.1.3', false],
  ['192.168.1.4', true],
  ['10.0.0.2', false],
  ['2001:db8::52:0:1', false],
  ['2001:db8::52:0:2', true],
  ['2001:db8::52:0:3', false],
  ['2002:db8:a::123', false],
  ['fe80::424b:c8be:1643:a1b6', true],
  ['barbaz.net', true],
  ['www.barbaz.net', false],
  ['foobar.com', false],
  ['www.foobar.com', false],
  ['foofoobar.com', true],
  ['baz.com', true],
  ['localhost.net', true],
  ['local.localhost', true],
  ['barbarbaz.net', true],
  ['wildcard.io', true],
  ['nested.wildcard.io', false],
  ['awildcard.io', true],
];

describe('the proxy from the environment, as Go finds it', () => {
  it.each(GO_USE_PROXY_TESTS)('%s:80 goes through the proxy: %s', (host, proxied) => {
    expect(usesProxy(host, '80', GO_NO_PROXY)).toBe(proxied);
  });

  it('sends nothing through a proxy with NO_PROXY=*', () => {
    expect(usesProxy('api.example.com', '443', 'example.org, *')).toBe(false);
  });

  it.each([
    [
      'HTTPS_PROXY for an https server',
      'https://api.example.com:6443',
      { HTTPS_PROXY: 'http://proxy:3128' },
      'http://proxy:3128',
    ],
    ['the lower-case name too', 'https://api.example.com', { https_proxy: 'http://proxy:3128' }, 'http://proxy:3128'],
    [
      'the upper-case name first',
      'https://api.example.com',
      { HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2' },
      'http://upper:1',
    ],
    ['HTTP_PROXY for an http server', 'http://api.example.com', { HTTP_PROXY: 'proxy:3128' }, 'http://proxy:3128'],
    ['not HTTP_PROXY for an https server', 'https://api.example.com', { HTTP_PROXY: 'http://proxy:3128' }, undefined],
    [
      'not a server NO_PROXY names',
      'https://api.example.com',
      { HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'example.com' },
      undefined,
    ],
    [
      'not a server no_proxy names',
      'https://10.96.0.1',
      { HTTPS_PROXY: 'http://proxy:3128', no_proxy: '10.96.0.0/12' },
      undefined,
    ],
    [
      'a NO_PROXY entry with another port',
      'https://api.example.com:6443',
      { HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'api.example.com:443' },
      'http://proxy:3128',
    ],
    ['not loopback', 'https://127.0.0.1:6443', { HTTPS_PROXY: 'http://proxy:3128' }, undefined],
  ])('uses %s', (_label, server, env, proxy) => {
    expect(proxyFromEnvironment(server, env)).toBe(proxy);
  });

  it('refuses a proxy that is not a URL, naming the variable and never its value', () => {
    const env = { https_proxy: 'http://bob:proxy-s3cret@proxy.example:99999' };
    expect(() => proxyFromEnvironment('https://api.example.com', env)).toThrow(
      /^https_proxy from the environment is not a URL \(its value is not shown/,
    );
    expect(() => proxyFromEnvironment('https://api.example.com', env)).not.toThrow(/proxy-s3cret/);
  });
});
