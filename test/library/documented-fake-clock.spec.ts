// docs/testing.md's test on a fake clock, run as a reader would: its spec beside the Quick start's reconciler
// (README.md), under Jest, whose globals (`describe`, `expect`, `it`) the spec uses as under Vitest's
// `globals: true`. The spec's tests are this file's tests.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll } from '@jest/globals';
import { filesOf } from '../support/documented-files.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

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
await writeFile(join(app, 'src/config-map.reconciler.clock.spec.ts'), spec);
await import(pathToFileURL(join(app, 'src/config-map.reconciler.clock.spec.ts')).href);
