import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The text of a section of a page: from its heading, at whatever level, to the next heading of that level. */
async function sectionOf(page: string, section: string): Promise<string> {
  const text = await readFile(join(ROOT, page), 'utf8');
  const heading = new RegExp(`^(#+) ${section}$`, 'm').exec(text);
  if (!heading) throw new Error(`${page} has no "${section}" section`);
  const rest = text.slice(heading.index + heading[0].length);
  const end = new RegExp(`^${heading[1]} `, 'm').exec(rest)?.index ?? rest.length;
  return rest.slice(0, end);
}

/**
 * The files a section of one of the repository's pages gives, as a newcomer
 * pastes them: each `ts` or `js` block of the section, named by its first
 * line (`// src/main.ts`, `// vitest.config.ts`). `page` is relative to the
 * repository's root.
 */
export async function filesOf(page: string, section: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const [, code] of (await sectionOf(page, section)).matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)) {
    const path = /^\/\/ (\S+\.[tj]s)\n/.exec(code)?.[1];
    if (!path) throw new Error(`${page}: a "${section}" block does not start with its file's name (// src/…)`);
    files.set(path, code);
  }
  return files;
}

/**
 * The JSON a section of one of the repository's pages gives (its `json`
 * block), as a newcomer merges it into a file of theirs.
 */
export async function jsonOf(page: string, section: string): Promise<Record<string, unknown>> {
  const block = /```json\n([\s\S]*?)```/.exec(await sectionOf(page, section));
  if (!block) throw new Error(`${page}: the "${section}" section has no json block`);
  return JSON.parse(block[1]) as Record<string, unknown>;
}
