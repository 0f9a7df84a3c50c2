#!/usr/bin/env node
// The package's command. `nestjs-kube-events catalog <module>` renders the Event catalog a module exports
// (`defineEventCatalog`) as Markdown: to stdout, to a file (`--out`), or checks that file is current (`--check`,
// for CI: it exits 1 when the file differs from what the catalog renders).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { renderEventCatalog } from '../catalog/catalog-markdown.js';
import { isEventCatalog } from '../catalog/event-catalog.js';
import { excerpt } from '../text/describe-value.js';

const USAGE = `Usage: nestjs-kube-events catalog <module> [--export <name>] [--title <text>] [--intro <text>] [--out <file> [--check]]

Renders the Event catalog that <module> (a JavaScript module, e.g. dist/widget.events.js) exports as a Markdown table.
  --export  the export that holds the catalog, when the module exports several
  --title   the page's heading (default: Events)
  --intro   a paragraph under the heading
  --out     writes the page to this file instead of stdout
  --check   with --out: writes nothing, and fails when the file is not what the catalog renders`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      export: { type: 'string' },
      title: { type: 'string' },
      intro: { type: 'string' },
      out: { type: 'string' },
      check: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, module] = positionals;
  if (values.help) return said(USAGE, 0);
  if (command !== 'catalog' || !module || positionals.length > 2) return said(USAGE, 2);
  if (values.check && !values.out) return said('--check needs --out: the file to check.', 2);

  const exports = (await import(pathToFileURL(resolve(module)).href)) as Record<string, unknown>;
  const catalogs = Object.entries(exports).filter(([name, value]) =>
    values.export === undefined ? isEventCatalog(value) : name === values.export,
  );
  if (catalogs.length !== 1 || !isEventCatalog(catalogs[0][1])) {
    const found = Object.keys(exports).filter((name) => isEventCatalog(exports[name]));
    return said(
      values.export === undefined
        ? `${module} exports ${found.length === 0 ? 'no Event catalog' : `several Event catalogs (${found.join(', ')}): pick one with --export`}.`
        : `${module} exports no Event catalog named ${values.export}${found.length > 0 ? ` (it exports ${found.join(', ')})` : ''}.`,
      2,
    );
  }
  const page = renderEventCatalog(catalogs[0][1], { title: values.title, intro: values.intro });
  if (!values.out) {
    process.stdout.write(page);
    return 0;
  }
  if (values.check) {
    const current = await readFile(values.out, 'utf8').catch(() => undefined);
    if (current === page) return 0;
    return said(
      `${values.out} is not what the Event catalog in ${module} renders${current === undefined ? ' (it does not exist)' : ''}: ` +
        'run the same command without --check to write it.',
      1,
    );
  }
  // A docs folder the project has not made yet, as a first `--out docs/events.md` in a new app finds.
  await mkdir(dirname(values.out), { recursive: true });
  await writeFile(values.out, page);
  return 0;
}

function said(text: string, code: number): number {
  (code === 0 ? process.stdout : process.stderr).write(`${text}\n`);
  return code;
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) =>
  // An import error quotes the module's own text: bounded and redacted like every message of the library.
  said(`nestjs-kube-events: ${excerpt(error instanceof Error ? error.message : String(error), 2_048)}`, 1),
);
