import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The files a section of one of the repository's pages gives, as a newcomer
 * pastes them: each `ts` or `js` block of the section, named by its first
 * line (`// src/main.ts`, `// vitest.config.ts`). `page` is relative to the
 * repository's root.
 */
export async function filesOf(page: string, section: string): Promise<Map<string, string>> {
  const text = await readFile(join(ROOT, page), 'utf8');
  // The section's heading, at whatever level the page gives it, to the next heading of that level.
  const heading = new RegExp(`^(#+) ${section}$`, 'm').exec(text);
  if (!heading) throw new Error(`${page} has no "${section}" section`);
  const rest = text.slice(heading.index + heading[0].length);
  const end = new RegExp(`^${heading[1]} `, 'm').exec(rest)?.index ?? rest.length;
  const files = new Map<string, string>();
  for (const [, code] of rest.slice(0, end).matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)) {
    const path = /^\/\/ (\S+\.[tj]s)\n/.exec(code)?.[1];
    if (!path) throw new Error(`${page}: a "${section}" block does not start with its file's name (// src/…)`);
    files.set(path, code);
  }
  return files;
}
