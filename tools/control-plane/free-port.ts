import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: listen on port 0, read
 * the port the kernel picked, close. Another process may take it before the
 * caller binds it, so callers retry on a bind failure.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not read the allocated port'))));
    });
  });
}

/** `count` distinct free ports. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
