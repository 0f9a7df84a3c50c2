// Run as a script in a fresh Node.js: imports the module named by its first argument and prints, as one JSON
// line, how many modules of the package named by its second argument that import loaded (resolved).
import { registerHooks } from 'node:module';

const [entry, packageName] = process.argv.slice(2);
let loaded = 0;
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (resolved.url.includes(`/node_modules/${packageName}/`)) loaded++;
    return resolved;
  },
});
await import(entry);
console.log(JSON.stringify({ loaded }));
