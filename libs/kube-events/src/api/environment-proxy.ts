import { BlockList, isIP } from 'node:net';
import { PROXY_NOT_A_URL } from '../kube-events.messages.js';

/** Loopback addresses, which Go's `ProxyFromEnvironment` never sends through a proxy. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** One `NO_PROXY` entry, as Go's httpproxy parses it. */
type NoProxyEntry =
  | { readonly kind: 'all' }
  | { readonly kind: 'cidr'; readonly block: BlockList }
  | { readonly kind: 'ip'; readonly ip: string; readonly port: string }
  | { readonly kind: 'domain'; readonly suffix: string; readonly port: string; readonly matchesItself: boolean };

/**
 * The proxy a request to `server` goes through, from the environment, as
 * client-go finds it (Go's `http.ProxyFromEnvironment`): `HTTPS_PROXY` for
 * an `https://` server and `HTTP_PROXY` for an `http://` one (upper case
 * first, then lower case), unless `NO_PROXY` matches the server or the
 * server is `localhost` or a loopback address. A proxy written without a
 * scheme is `http://`. Used only when the kubeconfig's cluster names no
 * `proxy-url` of its own.
 *
 * @throws Error naming the variable when its value is not a URL: the value
 * is not shown and no error that carries it (a `TypeError`'s `input`) is
 * kept, since a proxy's URL may hold a password.
 */
export function proxyFromEnvironment(server: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return undefined;
  }
  const variable = url.protocol === 'https:' ? 'HTTPS_PROXY' : url.protocol === 'http:' ? 'HTTP_PROXY' : undefined;
  const proxy = variable ? fromEnv(env, variable) : '';
  if (!proxy) return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (!usesProxy(host, port, fromEnv(env, 'NO_PROXY'))) return undefined;
  const proxyUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
  if (!URL.canParse(proxyUrl)) throw new Error(PROXY_NOT_A_URL(env[variable!] ? variable! : variable!.toLowerCase()));
  return proxyUrl;
}

/** Whether a request to `host:port` goes through the proxy, under `noProxy` (Go's `useProxy`). */
export function usesProxy(host: string, port: string, noProxy: string): boolean {
  if (host === 'localhost') return false;
  const family = ipFamily(host);
  if (family && LOOPBACK.check(host, family)) return false;
  return !parseNoProxy(noProxy).some((entry) => matches(entry, host, port, family));
}

function matches(entry: NoProxyEntry, host: string, port: string, family: 'ipv4' | 'ipv6' | undefined): boolean {
  switch (entry.kind) {
    case 'all':
      return true;
    case 'cidr':
      return family !== undefined && entry.block.check(host, family);
    case 'ip':
      return family !== undefined && sameAddress(entry.ip, host) && (!entry.port || entry.port === port);
    case 'domain':
      return (
        (host.endsWith(entry.suffix) || (entry.matchesItself && host === entry.suffix.slice(1))) &&
        (!entry.port || entry.port === port)
      );
  }
}

/**
 * `NO_PROXY`'s entries: `*` (everything), a CIDR block, an IP address
 * (with a port or not), or a domain, which matches itself and its
 * subdomains (`example.com`), or its subdomains only (`.example.com`,
 * `*.example.com`), with a port or not.
 */
function parseNoProxy(noProxy: string): NoProxyEntry[] {
  const entries: NoProxyEntry[] = [];
  for (const raw of noProxy.split(',')) {
    const item = raw.trim().toLowerCase();
    if (!item) continue;
    if (item === '*') return [{ kind: 'all' }];
    const cidr = parseCidr(item);
    if (cidr) {
      entries.push({ kind: 'cidr', block: cidr });
      continue;
    }
    const { host, port } = splitHostPort(item);
    if (!host) continue;
    if (ipFamily(host)) {
      entries.push({ kind: 'ip', ip: host, port });
      continue;
    }
    const name = host.startsWith('*.') ? host.slice(1) : host;
    const matchesItself = !name.startsWith('.');
    entries.push({ kind: 'domain', suffix: matchesItself ? `.${name}` : name, port, matchesItself });
  }
  return entries;
}

function parseCidr(item: string): BlockList | undefined {
  const slash = item.indexOf('/');
  if (slash < 0) return undefined;
  const address = item.slice(0, slash);
  const prefix = Number(item.slice(slash + 1));
  const family = ipFamily(address);
  if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 'ipv4' ? 32 : 128)) return undefined;
  const block = new BlockList();
  block.addSubnet(address, prefix, family);
  return block;
}

/** `host:port`, `[v6]:port`, or a host alone (a bare IPv6 address included). */
function splitHostPort(item: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(item);
  if (bracketed) return { host: bracketed[1], port: bracketed[2] ?? '' };
  const colon = item.lastIndexOf(':');
  if (colon > 0 && item.indexOf(':') === colon) return { host: item.slice(0, colon), port: item.slice(colon + 1) };
  return { host: item, port: '' };
}

function ipFamily(host: string): 'ipv4' | 'ipv6' | undefined {
  const version = isIP(host);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
}

function sameAddress(a: string, b: string): boolean {
  const familyA = ipFamily(a);
  if (!familyA) return false;
  const single = new BlockList();
  single.addAddress(a, familyA);
  const familyB = ipFamily(b);
  return familyB !== undefined && single.check(b, familyB);
}

function fromEnv(env: NodeJS.ProcessEnv, name: string): string {
  return env[name] || env[name.toLowerCase()] || '';
}
