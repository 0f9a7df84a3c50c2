// Checks every link of the project's Markdown pages: a relative link (or a
// link to this repository on GitHub) must name a file that exists, and its
// `#anchor` a heading of that page, as GitHub makes anchors from headings.
// Links to other sites are not fetched.
//
//   node --import @swc-node/register/esm-register tools/docs/check-links.ts
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Links to this repository's files on GitHub, as the package README (shown by npm) must write them. */
const REPOSITORY = [
  'https://github.com/nestjs-kube-events/nestjs-kube-events/blob/main/',
  'https://raw.githubusercontent.com/nestjs-kube-events/nestjs-kube-events/main/',
];
const PAGES = ['README.md', 'CHANGELOG.md', 'libs/kube-events/README.md', 'apps/sample-operator/README.md'];

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens; repeats get `-1`, `-2`. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .replace(/<[^>]*>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    anchors.add(times ? `${slug}-${times}` : slug);
  }
  return anchors;
}

/** Links of a page, with their line numbers, outside code. */
function linksOf(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
    if (fenced) return;
    const prose = text.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
      links.push({ target: match[1], line: index + 1 });
  });
  return links;
}

function problemWith(page: string, target: string): string | undefined {
  let path = target;
  const base = REPOSITORY.find((prefix) => path.startsWith(prefix));
  if (base) path = join(ROOT, path.slice(base.length));
  else if (/^[a-z]+:/i.test(path)) return undefined; // another site, or mailto:
  const [file, anchor] = path.split('#', 2);
  const resolved = file === '' ? page : file.startsWith(ROOT) ? file : resolve(dirname(page), file);
  if (!existsSync(resolved)) return `no file ${relative(ROOT, resolved)}`;
  if (anchor === undefined) return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return `#${anchor} on a file that is not a page`;
  if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))
    return `no heading #${anchor} in ${relative(ROOT, resolved)}`;
  return undefined;
}

export function checkLinks(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  const problems: string[] = [];
  for (const page of [...PAGES, ...docs]) {
    const path = join(ROOT, page);
    if (!existsSync(path)) continue;
    for (const { target, line } of linksOf(readFileSync(path, 'utf8'))) {
      const problem = problemWith(path, target);
      if (problem) problems.push(`${page}:${line}: ${target}: ${problem}`);
    }
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = checkLinks();
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  if (problems.length) {
    process.stderr.write(`${problems.length} broken link(s)\n`);
    process.exitCode = 1;
  } else process.stdout.write('links: every link resolves\n');
}
