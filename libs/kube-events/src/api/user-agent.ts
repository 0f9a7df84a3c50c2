import { readFileSync } from 'node:fs';
import { isQualifiedName } from '../event-rules/qualified-name.js';

/** What names the library's requests before a version and a controller are added. */
const PRODUCT = 'nestjs-kube-events';

/**
 * The package's version, read once from its own `package.json` (next to
 * `src/` and `dist/` alike), without a JSON import, which ESM and CJS
 * consumers and their bundlers treat differently; `undefined` when the
 * file cannot be read (a bundle that left it behind).
 */
function packageVersion(): string | undefined {
  try {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof version === 'string' && /^[0-9A-Za-z.+-]+$/.test(version) ? version : undefined;
  } catch {
    return undefined;
  }
}

const VERSION = packageVersion();

/**
 * The `User-Agent` of the library's requests:
 * `nestjs-kube-events/<version> (<controller>)`, so that audit logs and
 * the API server's metrics tell them apart from the controller's own. The
 * controller is the reporter's, a qualified name, which is a valid header
 * value; without one (or with anything else), the product and version alone.
 *
 * @example
 * eventsUserAgent('example.com/configmirror'); // 'nestjs-kube-events/0.1.0 (example.com/configmirror)'
 */
export function eventsUserAgent(controller?: string): string {
  const product = VERSION === undefined ? PRODUCT : `${PRODUCT}/${VERSION}`;
  return controller === undefined || !isQualifiedName(controller) ? product : `${product} (${controller})`;
}
