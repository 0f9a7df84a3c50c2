/** Small measuring helpers shared by the benchmarks. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Heap in use after a full collection (run node with --expose-gc). */
export function settledHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run the benchmarks with node --expose-gc (npm run bench does)');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Microseconds per operation of `run(count)`, in wall time. */
export async function microsPerOp(count: number, run: (count: number) => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await run(count);
  return Number(process.hrtime.bigint() - started) / 1_000 / count;
}

/**
 * Microseconds per operation of `run(count)`, in CPU time of the main
 * thread: what the operations cost the event loop, garbage collection on it
 * included. Unlike wall time, it leaves out the time the thread waited for
 * a CPU, which on a small shared machine varies far more than the work does.
 * Starts from a collected heap, so that garbage left by what ran before
 * (another recorder of 100,000 series, say) is not collected, and paid
 * for, inside this measurement.
 */
export async function cpuMicrosPerOp(count: number, run: (count: number) => Promise<void>): Promise<number> {
  settledHeap();
  const before = process.threadCpuUsage();
  await run(count);
  const { user, system } = process.threadCpuUsage(before);
  return (user + system) / count;
}

export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of cells.slice(1)) console.log(line(row));
}

export const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(2)}×`;
