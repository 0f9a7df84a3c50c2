// A small SVG writer for line charts: panels side by side, each with its
// axes, ticks and lines, and one legend under them. Enough for the charts the
// benchmarks draw from their own measurements; no dependency, and the output
// is plain text that a diff can read.

/** One line: points as [x, y], in the panel's units. */
export interface ChartLine {
  label: string;
  color: string;
  points: readonly (readonly [number, number])[];
  /** A dashed line, for what the others are measured against. */
  dashed?: boolean;
}

export interface ChartPanel {
  title: string;
  lines: readonly ChartLine[];
}

export interface LineChart {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  panels: readonly ChartPanel[];
  /** What the chart was drawn from, kept in the file's `<desc>`: the command, the date, the versions. */
  description?: string;
}

const PANEL_WIDTH = 440;
const PANEL_HEIGHT = 280;
const MARGIN = { top: 84, right: 24, bottom: 48, left: 64 };
const PANEL_GAP = 40;
const LEGEND_ROW = 20;
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const round = (value: number) => Math.round(value * 10) / 10;

/** About five round steps from 0 to at least `max`: 1, 2 or 5 times a power of ten. */
export function ticks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough)!;
  const values: number[] = [];
  for (let value = 0; value < max + step; value += step) values.push(value);
  return values;
}

const formatTick = (value: number) => value.toLocaleString('en-US');

function renderPanel(chart: LineChart, panel: ChartPanel, left: number, xMax: number, yMax: number): string {
  const xTicks = ticks(xMax);
  const yTicks = ticks(yMax);
  const xEnd = xTicks[xTicks.length - 1];
  const yEnd = yTicks[yTicks.length - 1];
  const top = MARGIN.top;
  const x = (value: number) => round(left + (value / xEnd) * PANEL_WIDTH);
  const y = (value: number) => round(top + PANEL_HEIGHT - (value / yEnd) * PANEL_HEIGHT);
  const parts: string[] = [];
  parts.push(
    `<text x="${left}" y="${top - 12}" font-size="14" font-weight="600" fill="#222">${escapeXml(panel.title)}</text>`,
  );
  for (const value of yTicks) {
    parts.push(
      `<line x1="${left}" y1="${y(value)}" x2="${left + PANEL_WIDTH}" y2="${y(value)}" stroke="#e4e4e4"/>`,
      `<text x="${left - 8}" y="${y(value) + 4}" font-size="11" text-anchor="end" fill="#555">${formatTick(value)}</text>`,
    );
  }
  for (const value of xTicks) {
    parts.push(
      `<line x1="${x(value)}" y1="${top + PANEL_HEIGHT}" x2="${x(value)}" y2="${top + PANEL_HEIGHT + 4}" stroke="#888"/>`,
      `<text x="${x(value)}" y="${top + PANEL_HEIGHT + 18}" font-size="11" text-anchor="middle" fill="#555">${formatTick(value)}</text>`,
    );
  }
  parts.push(
    `<line x1="${left}" y1="${top + PANEL_HEIGHT}" x2="${left + PANEL_WIDTH}" y2="${top + PANEL_HEIGHT}" stroke="#888"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + PANEL_HEIGHT}" stroke="#888"/>`,
    `<text x="${left + PANEL_WIDTH / 2}" y="${top + PANEL_HEIGHT + 36}" font-size="12" text-anchor="middle" fill="#333">${escapeXml(chart.xLabel)}</text>`,
  );
  // Dashed lines first, so that what is measured against them is drawn on top.
  const ordered = [...panel.lines].sort((a, b) => Number(b.dashed ?? false) - Number(a.dashed ?? false));
  for (const line of ordered) {
    if (!line.points.length) continue;
    const path = line.points.map(([px, py], i) => `${i ? 'L' : 'M'}${x(px)} ${y(py)}`).join(' ');
    parts.push(
      `<path d="${path}" fill="none" stroke="${line.color}" stroke-width="${line.dashed ? 1.5 : 2.5}"` +
        `${line.dashed ? ' stroke-dasharray="6 4"' : ''} stroke-linejoin="round"><title>${escapeXml(line.label)}</title></path>`,
    );
  }
  return parts.join('\n');
}

/** The chart as an SVG document. */
export function renderLineChart(chart: LineChart): string {
  const panels = chart.panels;
  const legend = [...new Map(panels.flatMap((panel) => panel.lines).map((line) => [line.label, line])).values()];
  const width =
    MARGIN.left + panels.length * PANEL_WIDTH + (panels.length - 1) * (PANEL_GAP + MARGIN.left) + MARGIN.right;
  const legendTop = MARGIN.top + PANEL_HEIGHT + MARGIN.bottom + 8;
  const height = legendTop + Math.ceil(legend.length / 2) * LEGEND_ROW + 12;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT}>`,
    `<title>${escapeXml(chart.title)}</title>`,
  ];
  if (chart.description) parts.push(`<desc>${escapeXml(chart.description)}</desc>`);
  parts.push(
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="16" font-weight="700" fill="#111">${escapeXml(chart.title)}</text>`,
  );
  if (chart.subtitle) {
    parts.push(`<text x="${MARGIN.left}" y="40" font-size="12" fill="#555">${escapeXml(chart.subtitle)}</text>`);
  }
  panels.forEach((panel, index) => {
    const left = MARGIN.left + index * (PANEL_WIDTH + PANEL_GAP + MARGIN.left);
    // Each panel its own scales: a storm is over in seconds, a backoff takes a minute.
    const xMax = Math.max(1, ...panel.lines.flatMap((line) => line.points.map(([px]) => px)));
    const yMax = Math.max(1, ...panel.lines.flatMap((line) => line.points.map(([, py]) => py)));
    parts.push(renderPanel(chart, panel, left, xMax, yMax));
    parts.push(
      `<text transform="translate(${left - 48} ${MARGIN.top + PANEL_HEIGHT / 2}) rotate(-90)" font-size="12" text-anchor="middle" fill="#333">${escapeXml(chart.yLabel)}</text>`,
    );
  });
  legend.forEach((line, index) => {
    const left = MARGIN.left + (index % 2) * (width / 2);
    const top = legendTop + Math.floor(index / 2) * LEGEND_ROW;
    parts.push(
      `<line x1="${left}" y1="${top}" x2="${left + 28}" y2="${top}" stroke="${line.color}" stroke-width="${line.dashed ? 1.5 : 2.5}"${line.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<text x="${left + 36}" y="${top + 4}" font-size="12" fill="#222">${escapeXml(line.label)}</text>`,
    );
  });
  parts.push('</svg>', '');
  return parts.join('\n');
}
