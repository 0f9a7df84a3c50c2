/**
 * The oldest Node.js the operator runs on: what `@kubernetes/client-node`'s
 * undici and the library need (the `engines` of the workspace's package.json).
 * This module imports nothing, so that the entry point can check before
 * anything else is loaded.
 */
export const MINIMUM_NODE = '22.19';

/** Whether `version` (`process.versions.node`, e.g. `22.19.0`) is {@link MINIMUM_NODE} or newer. */
export function isSupportedNode(version: string, minimum: string = MINIMUM_NODE): boolean {
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

/** What the entry point prints when Node.js is too old. */
export const unsupportedNode = (version: string) =>
  `sample-operator needs Node.js ${MINIMUM_NODE} or newer; this is Node.js ${version}. ` +
  'Run it with a newer node (the repository installs one: npm ci, then npm start).';
