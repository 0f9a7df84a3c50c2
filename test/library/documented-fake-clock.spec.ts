// docs/testing.md's test on a fake clock, run as a reader would: its spec beside the Quick start's reconciler
// (README.md), under Jest, with `describe`, `expect` and `it` from '@jest/globals' in place of Vitest's, as the
// page's "With Jest" section says. The spec's tests are this file's tests.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll } from '@jest/globals';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The `ts` blocks of a section of a page, each named by its first line (`// src/main.ts`). */
async function filesOf(page: string, section: string): Promise<Map<string, string>> {
  const text = await readFile(join(ROOT, page), 'utf8');
  const heading = new RegExp(`^(#+) ${section}$`, 'm').exec(text);
  if (!heading) throw new Error(`${page} has no "${section}" section`);
  const rest = text.slice(heading.index + heading[0].length);
  const end = new RegExp(`^${heading[1]} `, 'm').exec(rest)?.index ?? rest.length;
  const files = new Map<string, string>();
  for (const [, code] of rest.slice(0, end).matchAll(/```ts\n([\s\S]*?)```/g)) {
    const path = /^\/\/ (\S+\.ts)\n/.exec(code)?.[1];
    if (!path) throw new Error(`${page}: a "${section}" block does not start with its file's name (// src/…)`);
    files.set(path, code);
  }
  return files;
}

const app = await mkdtemp(join(tmpdir(), 'kube-events-documented-'));
afterAll(() => rm(app, { recursive: true, force: true }));
// The workspace's packages, as the reader's app has them installed.
await symlink(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
await mkdir(join(app, 'src'));
const reconciler = (await filesOf('README.md', 'Quick start')).get('src/config-map.reconciler.ts');
const spec = (await filesOf('docs/testing.md', 'Time the test controls')).get(
  'src/config-map.reconciler.clock.spec.ts',
);
if (!reconciler || !spec) throw new Error('the Quick start reconciler or the fake clock spec is missing from the docs');
await writeFile(join(app, 'src/config-map.reconciler.ts'), reconciler);
await writeFile(
  join(app, 'src/config-map.reconciler.clock.spec.ts'),
  spec.replace("from 'vitest'", "from '@jest/globals'"),
);
await import(pathToFileURL(join(app, 'src/config-map.reconciler.clock.spec.ts')).href);
