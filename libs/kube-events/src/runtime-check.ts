import { MINIMUM_NODE } from './kube-events.constants.js';
import { UNSUPPORTED_NODE } from './kube-events.messages.js';

/**
 * Whether `version` (`process.versions.node`, e.g. `22.19.0`) is `minimum`
 * (`major.minor[.patch]`) or newer, comparing each part as a number.
 */
export function isAtLeast(version: string, minimum: string): boolean {
  const parts = (text: string) =>
    text
      .replace(/^v/, '')
      .split(/[.+-]/, 3)
      .map((part) => Number.parseInt(part, 10) || 0);
  const have = parts(version);
  const need = parts(minimum);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) !== (need[i] ?? 0)) return (have[i] ?? 0) > (need[i] ?? 0);
  }
  return true;
}

/**
 * Throws when this Node.js cannot load the package's dependencies, so the
 * first import says what to do instead of crashing inside undici.
 */
export function assertSupportedNode(version: string = process.versions.node): void {
  if (!isAtLeast(version, MINIMUM_NODE)) throw new Error(UNSUPPORTED_NODE(version));
}

// index.ts imports this module first: ESM evaluates it before @kubernetes/client-node and undici.
assertSupportedNode();
