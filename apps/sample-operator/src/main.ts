import { isSupportedNode, unsupportedNode } from './node-version.js';

// Checked before anything loads @kubernetes/client-node (undici) or OpenTelemetry: under an older Node.js they
// crash while loading, with an error that does not say why. Hence the dynamic import.
if (!isSupportedNode(process.versions.node)) {
  process.stderr.write(`${unsupportedNode(process.versions.node)}\n`);
  process.exit(1);
}
await import('./operator-main.js');
