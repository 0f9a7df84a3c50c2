// The chart of `npm run bench:clientgo`: for the storm and the backoff
// workloads, each client's count on the API server over time, against the
// occurrences it published. The bench saves what it measured beside the
// chart (`<chart>.json`), so the chart can be drawn again from that run:
//
//   node --import @swc-node/register/esm-register bench/clientgo-chart.ts docs/clientgo-comparison.json
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderLineChart, type ChartLine } from './svg-chart.js';

/** One client's run of one workload, as measured. */
export interface ChartedRun {
  client: string;
  color: string;
  /** Occurrences counted on the server, as [milliseconds since "go", count]. */
  counted: [number, number][];
  /** Occurrences the client had published, as [milliseconds since "go", count], until it returned. */
  issued: [number, number][];
}

/** What the chart is drawn from: saved by the bench as JSON. */
export interface ClientGoChartData {
  /** The run: command, date, versions. */
  description: string;
  panels: { title: string; runs: ChartedRun[] }[];
}

const seconds = (points: readonly (readonly [number, number])[]) =>
  points.map(([ms, count]) => [ms / 1000, count] as const);

/** The chart as SVG. */
export function renderClientGoChart(data: ClientGoChartData): string {
  return renderLineChart({
    title: 'What the API server counts while controllers fail',
    subtitle:
      'Sum of series.count over the Events on kube-apiserver, read every 0.25 s (solid), against the occurrences each client published (dashed).',
    xLabel: 'seconds since the workload started',
    yLabel: 'occurrences',
    description: data.description,
    panels: data.panels.map(({ title, runs }) => ({
      title,
      lines: runs.flatMap((run): ChartLine[] => [
        {
          label: `${run.client}: published`,
          color: run.color,
          dashed: true,
          // Nothing is published after the client returned: its total holds until the last read of the server.
          points: seconds([...run.issued, [run.counted.at(-1)?.[0] ?? 0, run.issued.at(-1)?.[1] ?? 0]]),
        },
        { label: `${run.client}: counted on the server`, color: run.color, points: seconds(run.counted) },
      ]),
    })),
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const source = process.argv[2];
  if (!source) throw new Error('usage: clientgo-chart.ts <chart data .json> [<out .svg>]');
  const data = JSON.parse(await readFile(source, 'utf8')) as ClientGoChartData;
  const out = process.argv[3] ?? source.replace(/\.json$/, '.svg');
  await writeFile(out, renderClientGoChart(data));
  process.stdout.write(`chart written to ${out}\n`);
}
