/**
 * `npm run bench:clientgo`: the library side by side with client-go's
 * tools/events (events.k8s.io/v1) on one local kube-apiserver, same
 * workloads, each client in a process of its own so that its CPU and peak RSS
 * are its own. Writes are counted by the API server (apiserver_request_total),
 * counts are read back from the Events it holds. Prints ratios, asserts
 * nothing.
 *
 * BENCH_WINDOW_S (default 30): how long to wait after a client returns for
 * the server's counts to become exact; the wait also ends once they have
 * not moved for BENCH_SETTLE_S (default 15: client-go retries a write after
 * 10 s ± 25 %), which keeps the whole run within ~5 minutes on 2 cores.
 * BENCH_WORKLOADS (default ABC): the workloads to run, by letter. Workload B
 * also runs through a `@PublishesFailures` reconcile method, whose table
 * gives the time a failed reconcile spent in the decorator.
 * BENCH_ROUNDS (default 1): runs of each workload and client, interleaved
 * round by round; the tables then show the medians (CPU per write and peak
 * RSS each), since one run of either side varies by ±20 % on 2 cores.
 * BENCH_LIBRARY_NODE_FLAGS: flags for the library's Node process, for
 * instance `--cpu-prof --cpu-prof-dir=/tmp/profiles` to see where its CPU goes.
 * BENCH_CHART (default docs/clientgo-comparison.svg; `none` for no chart):
 * where to write the chart of workloads A and B (and, beside it as .json, what
 * it is drawn from), the count on the server
 * over time for each client against the occurrences it published, sampled
 * every 250 ms from "go" and for at least 20 s after the client returned.
 * BENCH_MEMORY_LIMIT (default 256Mi, the sample operator's pod limit): each
 * client runs in a cgroup with this memory limit, as in a pod, since Node
 * sizes V8's heap from it; `none` runs them without (see memory-limit.ts).
 * The library's marginal RSS also says how much of it is V8's young
 * generation (its peak committed size, sampled every 250 ms), which V8 sizes
 * at start-up and a run fills as it allocates.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { REPO_ROOT, kubernetesVersion } from '../tools/control-plane/build.js';
import { startControlPlane } from '../tools/control-plane/control-plane.js';
import { ApiServer, delta, type ObjectRef, type RequestCounts } from './client-go/api-server.js';
import { ensureClientGoBinary } from './client-go/build.js';
import { ClientProcess, type Holds, type Usage } from './client-go/client-process.js';
import { createMemoryLimit, parseMemoryLimit, type MemoryLimit } from './client-go/memory-limit.js';
import { tally, type Tally } from './client-go/tally.js';
import { printTable } from './measure.js';
import { renderClientGoChart, type ClientGoChartData } from './clientgo-chart.js';

const NAMESPACE = 'bench';
/** Where the round trips measured beside the decorator's run write their Events, apart from the counted ones. */
const ROUND_TRIP_NAMESPACE = 'bench-round-trip';
/** How often a round trip is measured while the decorator's workload runs. */
const ROUND_TRIP_EVERY_MS = 100;
const WINDOW_MS = Number(process.env.BENCH_WINDOW_S ?? 30) * 1000;
const SETTLE_MS = Number(process.env.BENCH_SETTLE_S ?? 15) * 1000;
const POLL_MS = 1_000;
// client-go's workqueue backoff doubles from 5 ms to 1000 s; capped at 1 s, 20 failures last ~13 s.
const BACKOFF_CAP = '1s';
const CHART = process.env.BENCH_CHART ?? 'docs/clientgo-comparison.svg';
const SAMPLE_MS = 250;
/** How long a charted run is sampled after the client returned, at least: the library is exact at once, client-go is not. */
const CHART_WATCH_MS = 20_000;

interface Workload {
  label: string;
  objects: number;
  repeats: number;
  backoff: boolean;
  failure: boolean;
  /** The chart's panel title, for the workloads it shows. */
  chart?: string;
}

const ALL_WORKLOADS: Workload[] = [
  {
    label: '(A) 200 objects × 50 concurrent failures',
    objects: 200,
    repeats: 50,
    backoff: false,
    failure: true,
    chart: 'Storm: 200 objects × 50 concurrent failures',
  },
  {
    label: '(B) 200 objects × 20 failures on backoff',
    objects: 200,
    repeats: 20,
    backoff: true,
    failure: true,
    chart: 'Backoff: 200 objects × 20 failures, doubling from 5 ms',
  },
  { label: '(C) 2,000 distinct events', objects: 2_000, repeats: 1, backoff: false, failure: false },
];
const chosen = (process.env.BENCH_WORKLOADS ?? 'ABC').toUpperCase();
const WORKLOADS = ALL_WORKLOADS.filter((workload) => chosen.includes(workload.label[1]));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
const LIBRARY_NODE_FLAGS = (process.env.BENCH_LIBRARY_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const MEMORY_LIMIT_BYTES = parseMemoryLimit(process.env.BENCH_MEMORY_LIMIT ?? '256Mi');

interface Client {
  label: string;
  side: 'library' | 'client-go';
  /** The library through a `@PublishesFailures` method, for these workloads (by letter) only. */
  decorator?: string;
  qps: number;
  burst: number;
  /** Its line on the chart. */
  color: string;
}

const CLIENTS: Client[] = [
  { label: 'library, 100/500', side: 'library', qps: 100, burst: 500, color: '#1f77b4' },
  { label: 'client-go tools/events, 100/500', side: 'client-go', qps: 100, burst: 500, color: '#d62728' },
  { label: 'client-go tools/events, 5/10 (defaults)', side: 'client-go', qps: 5, burst: 10, color: '#ff7f0e' },
  {
    label: 'library @PublishesFailures, 100/500',
    side: 'library',
    decorator: 'B',
    qps: 100,
    burst: 500,
    color: '#2ca02c',
  },
];
const runsOn = (client: Client, workload: Workload) =>
  !client.decorator || client.decorator.includes(workload.label[1]);
/** Whose idle start-up a client's marginal costs are measured against: the decorator's starts a Nest application too. */
type Baseline = 'library' | 'client-go' | 'decorator';
const baselineOf = (client: Client): Baseline => (client.decorator ? 'decorator' : client.side);

interface Result {
  wallMs: number;
  rejected: Record<string, number>;
  requests: RequestCounts;
  writes: number;
  atReturn: Tally;
  final: Tally;
  /** After the client returned, when the server's counts were exact; undefined if never within the window. */
  exactAfterMs?: number;
  /** How long after the client returned the server was last read. */
  watchedMs: number;
  usage: Usage;
  /** Charted workloads: occurrences counted on the server, as [milliseconds since "go", count]. */
  counted: [number, number][];
  /** Occurrences the client had published, as [milliseconds since "go", count]. */
  issued: [number, number][];
  /** Through the decorator: the time failed reconciles spent in it. */
  holds?: Holds;
  firstHolds?: Holds;
  /** Through the decorator: Event writes timed on a connection of their own while it ran. */
  roundTrips?: Holds;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const n = (value: number) => Math.round(value).toLocaleString('en-US');

class Bench {
  private constructor(
    private readonly api: ApiServer,
    private readonly kubeconfigPath: string,
    private readonly goBinary: string,
    private readonly objectsFiles: Map<number, string>,
    private readonly memoryLimit: MemoryLimit | undefined,
  ) {}

  static async prepare(
    api: ApiServer,
    kubeconfigPath: string,
    goBinary: string,
    scratch: string,
    memoryLimit?: MemoryLimit,
  ): Promise<Bench> {
    await api.createNamespace(NAMESPACE);
    await api.createNamespace(ROUND_TRIP_NAMESPACE);
    const refs = await api.createConfigMaps(
      NAMESPACE,
      'cm',
      Math.max(...WORKLOADS.map((workload) => workload.objects)),
    );
    const files = new Map<number, string>();
    for (const count of new Set(WORKLOADS.map((workload) => workload.objects))) {
      const file = join(scratch, `objects-${count}.json`);
      await writeFile(file, JSON.stringify(refs.slice(0, count) satisfies ObjectRef[]));
      files.set(count, file);
    }
    return new Bench(api, kubeconfigPath, goBinary, files, memoryLimit);
  }

  private spawn(client: Client, workload?: Workload): ClientProcess {
    const flags = [`--kubeconfig=${this.kubeconfigPath}`, `--qps=${client.qps}`, `--burst=${client.burst}`];
    if (workload) {
      flags.push(
        `--objects=${this.objectsFiles.get(workload.objects)}`,
        `--repeats=${workload.repeats}`,
        `--backoff-cap=${BACKOFF_CAP}`,
      );
      if (workload.backoff) flags.push('--backoff');
      if (workload.failure) flags.push('--failure');
    }
    flags.push(`--controller=bench.example.com/${client.decorator ? 'decorator' : client.side}`);
    if (client.decorator) flags.push('--decorator');
    const [command, args] =
      client.side === 'client-go'
        ? [this.goBinary, flags]
        : [process.execPath, [...LIBRARY_NODE_FLAGS, 'bench/client-go/library-client.ts', ...flags]];
    const limited = this.memoryLimit?.wrap(command, args) ?? { command, args };
    return new ClientProcess(limited.command, limited.args, REPO_ROOT);
  }

  /** Start, load the client, exit: what each side costs before it publishes anything. */
  async idle(client: Client): Promise<Usage> {
    const child = this.spawn(client);
    try {
      await child.ready();
      await child.run();
      return await child.exit();
    } finally {
      child.kill();
    }
  }

  async run(client: Client, workload: Workload): Promise<Result> {
    const expected = new Map(
      Array.from({ length: workload.objects }, (_, i) => [`cm-${i}`, workload.repeats] as const),
    );
    const child = this.spawn(client, workload);
    try {
      await child.ready();
      const before = await this.api.requestCounts();
      const startedAt = Date.now();
      const sampler = workload.chart ? this.sample(startedAt, expected) : undefined;
      const timer = client.decorator ? this.timeRoundTrips() : undefined;
      const { wallMs, rejected, issued, holds, firstHolds } = await child.run();
      const roundTrips = await timer?.stop();
      const returnedAt = Date.now();
      const atReturn = tally(await this.api.events(NAMESPACE), expected);
      let final = atReturn;
      let exactAfterMs = atReturn.exact ? 0 : undefined;
      let movedAt = returnedAt;
      // The client keeps running meanwhile, as a controller would: writes it still has queued may land.
      while (!final.exact && Date.now() - returnedAt < WINDOW_MS && Date.now() - movedAt < SETTLE_MS) {
        await sleep(POLL_MS);
        const now = tally(await this.api.events(NAMESPACE), expected);
        if (now.counted !== final.counted || now.events !== final.events) movedAt = Date.now();
        final = now;
        if (final.exact) exactAfterMs = Date.now() - returnedAt;
      }
      const watchedMs = Date.now() - returnedAt;
      const counted = sampler ? await sampler.stopAfter(returnedAt + CHART_WATCH_MS) : [];
      const usage = await child.exit();
      const requests = delta(before, await this.api.requestCounts());
      const writes = [...requests]
        .filter(([key]) => /^(POST|PATCH|PUT) /.test(key))
        .reduce((sum, [, count]) => sum + count, 0);
      return {
        wallMs,
        rejected,
        requests,
        writes,
        atReturn,
        final,
        exactAfterMs,
        watchedMs,
        usage,
        counted,
        issued,
        holds,
        firstHolds,
        roundTrips,
      };
    } finally {
      child.kill();
      await this.api.deleteEvents(NAMESPACE);
      if (client.decorator) await this.api.deleteEvents(ROUND_TRIP_NAMESPACE);
    }
  }

  /** Times an Event write every ROUND_TRIP_EVERY_MS, one at a time, until told to stop. */
  private timeRoundTrips() {
    const times: number[] = [];
    let stopped = false;
    const done = (async () => {
      while (!stopped) {
        // A write that fails leaves no time rather than ending the run.
        const time = await this.api.timeEventWrite(ROUND_TRIP_NAMESPACE, times.length).catch(() => undefined);
        if (time !== undefined) times.push(time);
        await sleep(ROUND_TRIP_EVERY_MS);
      }
    })();
    return {
      stop: async (): Promise<Holds> => {
        stopped = true;
        await done;
        return percentilesOf(times);
      },
    };
  }

  /** Reads the server's count every SAMPLE_MS from `startedAt` until told when to stop. */
  private sample(startedAt: number, expected: Map<string, number>) {
    const points: [number, number][] = [[0, 0]];
    let until = Infinity;
    const done = (async () => {
      while (Date.now() < until) {
        // A read that fails leaves a gap in the line rather than ending the run.
        const events = await this.api.events(NAMESPACE).catch(() => undefined);
        if (events) points.push([Date.now() - startedAt, tally(events, expected).counted]);
        await sleep(SAMPLE_MS);
      }
      return points;
    })();
    return {
      stopAfter: (at: number) => {
        until = at;
        return done;
      },
    };
  }
}

/** What the chart of the charted workloads is drawn from: each client's count on the server, and what it published, over time. */
function chartDataOf(results: Map<Workload, Map<Client, Result>>, description: string): ClientGoChartData {
  return {
    description,
    panels: [...results]
      .filter(([workload]) => workload.chart)
      .map(([workload, row]) => ({
        title: workload.chart!,
        runs: [...row].map(([client, result]) => ({
          client: client.label,
          color: client.color,
          counted: result.counted,
          issued: result.issued,
        })),
      })),
  };
}

/** `POST 200 · PATCH 1,300`, then any answer that was not a success: `failed: PATCH 404×16`. */
function describeRequests(requests: RequestCounts): string {
  const byVerb = new Map<string, number>();
  const failed: string[] = [];
  for (const [key, count] of requests) {
    const [verb, code] = key.split(' ');
    if (!['POST', 'PATCH', 'PUT', 'GET'].includes(verb)) continue; // LIST/DELETECOLLECTION are the benchmark's own
    byVerb.set(verb, (byVerb.get(verb) ?? 0) + count);
    if (!code.startsWith('2')) failed.push(`${verb} ${code}×${n(count)}`);
  }
  const verbs = [...byVerb].map(([verb, count]) => `${verb} ${n(count)}`).join(' · ');
  return failed.length ? `${verbs} (failed: ${failed.join(', ')})` : verbs;
}

/** The library's publishes that rejected: ` (985 PublishTimeoutError)`. */
function describeRejected(rejected: Record<string, number>): string {
  const parts = Object.entries(rejected).map(([name, count]) => `${n(count)} ${name}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

function describeExact(result: Result): string {
  if (result.exactAfterMs === 0) return 'exact at return';
  if (result.exactAfterMs !== undefined) return `exact after +${(result.exactAfterMs / 1000).toFixed(1)} s`;
  const { missing, over, objectsWithout } = result.final;
  const parts = [];
  if (missing) parts.push(`${n(missing)} missing`);
  if (over) parts.push(`${n(over)} over-counted`);
  if (objectsWithout) parts.push(`${n(objectsWithout)} objects without an Event`);
  const settled = result.watchedMs < WINDOW_MS ? `, unchanged for the last ${SETTLE_MS / 1000} s` : '';
  return `not exact after ${(result.watchedMs / 1000).toFixed(0)} s${settled}: ${parts.join(', ')}`;
}

const perWrite = (result: Result, idle: Usage) => (result.usage.cpuMs - idle.cpuMs) / result.writes;
const rssAbove = (result: Result, idle: Usage) => result.usage.maxRssMb - idle.maxRssMb;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const medianUsage = (runs: Usage[]): Usage => ({
  cpuMs: median(runs.map((run) => run.cpuMs)),
  maxRssMb: median(runs.map((run) => run.maxRssMb)),
  workCpuMs: median(runs.map((run) => run.workCpuMs)),
  youngMb: medianOf(runs.map((run) => run.youngMb)),
});

/** The median of values a side may not report (client-go has no V8 heap). */
function medianOf(values: (number | undefined)[]): number | undefined {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length ? median(known) : undefined;
}

/** `+54 MB`, and for the library how much of it is V8's young generation: `+54 MB (V8 young generation +20)`. */
function describeRssAbove(result: Result, idle: Usage): string {
  const above = rssAbove(result, idle);
  const total = `${above >= 0 ? '+' : ''}${above.toFixed(0)} MB`;
  if (result.usage.youngMb === undefined || idle.youngMb === undefined) return total;
  const young = result.usage.youngMb - idle.youngMb;
  return `${total} (V8 young generation ${young >= 0 ? '+' : ''}${young.toFixed(0)})`;
}

/** Whether the clients' RSS is their own: a process that reached the cgroup's limit had pages reclaimed. */
function describeLimitReached(times: number): string {
  return times === 0
    ? 'no client reached it. '
    : `the clients reached it ${times} times, so their peak RSS is lower than their own: raise BENCH_MEMORY_LIMIT. `;
}

/** CPU per write from "go" to "exit", measured inside the client: no idle run to subtract, so less noisy. */
const workPerWrite = (result: Result) => result.usage.workCpuMs / result.writes;

/** The round of median CPU per write, its peak RSS the median of all rounds. */
function medianResult(runs: Result[], idle: Usage): Result {
  const byCpu = [...runs].sort((a, b) => perWrite(a, idle) - perWrite(b, idle));
  const middle = byCpu[Math.floor((byCpu.length - 1) / 2)];
  const workCpuMs = median(runs.map(workPerWrite)) * middle.writes;
  const maxRssMb = median(runs.map((run) => run.usage.maxRssMb));
  return {
    ...middle,
    usage: { cpuMs: middle.usage.cpuMs, maxRssMb, workCpuMs, youngMb: medianOf(runs.map((run) => run.usage.youngMb)) },
  };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

function percentilesOf(values: number[]): Holds {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

/**
 * Failed reconciles through `@PublishesFailures`, beside client-go's
 * `tools/events` on the same workload: wall time, occurrences lost, and the
 * time a failed reconcile spent in the decorator, against one round trip of
 * an Event write timed meanwhile on a connection of its own (one every
 * ROUND_TRIP_EVERY_MS). An object's first failure is shown apart: it creates
 * the Event, while the 200 objects start together.
 */
function printDecoratorTable(results: Map<Workload, Map<Client, Result>>, idle: Usage): void {
  const rows: string[][] = [];
  const spread = (holds: Holds | undefined) => (holds ? `${ms(holds.p50)} / ${ms(holds.p99)} / ${ms(holds.max)}` : '—');
  for (const [workload, row] of results) {
    const decorated = [...row].find(([client]) => client.decorator);
    if (!decorated) continue;
    const [, result] = decorated;
    const { holds, roundTrips } = result;
    for (const [client, other] of row) {
      if (client.side !== 'client-go') continue;
      rows.push([
        workload.label,
        client.label,
        `${(result.wallMs / 1000).toFixed(1)} s vs ${(other.wallMs / 1000).toFixed(1)} s (${(result.wallMs / other.wallMs).toFixed(2)}×)`,
        `${n(result.final.missing)} vs ${n(other.final.missing)}`,
        spread(holds),
        spread(result.firstHolds),
        roundTrips ? `${spread(roundTrips)} (${n(roundTrips.count)})` : '—',
        holds && roundTrips
          ? `${holds.p99 <= roundTrips.p50 ? 'yes' : 'no'}: ${(holds.p99 / roundTrips.p50).toFixed(2)}× its median, ${(holds.p99 / roundTrips.p99).toFixed(2)}× its p99`
          : '—',
        `${n(result.writes)}, ${perWrite(result, idle).toFixed(2)} ms CPU each`,
      ]);
    }
  }
  if (!rows.length) return;
  printTable(
    'Failed reconciles through @PublishesFailures (library, 100/500) against client-go tools/events',
    [
      'workload',
      'against',
      'wall, decorator vs client-go',
      'occurrences missing at the end (decorator vs client-go)',
      'time in the decorator, p50 / p99 / max (all but the first failure per object)',
      'first failure per object, p50 / p99 / max',
      'one round trip meanwhile, p50 / p99 / max (writes timed)',
      'decorator p99 within one round trip?',
      'decorator writes',
    ],
    rows,
  );
}

async function main(): Promise<void> {
  const binary = await ensureClientGoBinary();
  const controlPlane = await startControlPlane();
  const scratch = await mkdtemp(join(tmpdir(), 'bench-clientgo-'));
  const api = await ApiServer.connect(controlPlane.kubeConfig());
  const limit =
    MEMORY_LIMIT_BYTES === undefined
      ? { unavailable: 'BENCH_MEMORY_LIMIT=none' }
      : await createMemoryLimit(MEMORY_LIMIT_BYTES);
  const [memoryLimit, noLimitBecause] = 'unavailable' in limit ? [undefined, limit.unavailable] : [limit, undefined];
  try {
    const started = Date.now();
    const bench = await Bench.prepare(api, controlPlane.kubeconfigPath, binary.path, scratch, memoryLimit);
    const decorated = CLIENTS.find((client) => client.decorator && WORKLOADS.some((w) => runsOn(client, w)));
    const idleRuns: Record<Baseline, Usage[]> = { library: [], 'client-go': [], decorator: [] };
    for (let round = 0; round < ROUNDS; round++) {
      idleRuns.library.push(await bench.idle(CLIENTS[0]));
      idleRuns['client-go'].push(await bench.idle(CLIENTS[1]));
      if (decorated) idleRuns.decorator.push(await bench.idle(decorated));
    }
    const idle = {
      library: medianUsage(idleRuns.library),
      'client-go': medianUsage(idleRuns['client-go']),
      decorator: decorated ? medianUsage(idleRuns.decorator) : medianUsage(idleRuns.library),
    };

    const results = new Map<Workload, Map<Client, Result>>();
    for (const workload of WORKLOADS) {
      const clients = CLIENTS.filter((client) => runsOn(client, workload));
      const runs = new Map<Client, Result[]>(clients.map((client) => [client, []]));
      for (let round = 1; round <= ROUNDS; round++) {
        for (const client of clients) {
          process.stderr.write(
            `${workload.label} · ${client.label}${ROUNDS > 1 ? ` · round ${round} of ${ROUNDS}` : ''}…\n`,
          );
          runs.get(client)!.push(await bench.run(client, workload));
        }
      }
      results.set(
        workload,
        new Map(clients.map((client) => [client, medianResult(runs.get(client)!, idle[baselineOf(client)])])),
      );
    }

    console.log(
      `\n## The library vs client-go tools/events, side by side\n\n` +
        `kube-apiserver ${await kubernetesVersion()} (local), client-go v0.35.4, ${availableParallelism()} cores; QPS/burst per client as labelled. ` +
        `Writes are the API server's own apiserver_request_total{resource="events"}; counts are the sum of series.count over the Events it holds, ` +
        `read when the client returned (for the library: when every publish had settled) and then every ${POLL_MS / 1000} s while the client kept running, ` +
        `for up to ${WINDOW_MS / 1000} s or until unchanged for ${SETTLE_MS / 1000} s. ` +
        (ROUNDS > 1
          ? `Each row is the median of ${ROUNDS} interleaved rounds (CPU per write and peak RSS each; the other columns from the round of median CPU). `
          : '') +
        `CPU (user+sys) and peak RSS (VmHWM) are the client process's own; "marginal" is above an idle start-up of the same side ` +
        `(library: Node + client-node + nestjs-kube-events ${n(idle.library.cpuMs)} ms CPU, ${idle.library.maxRssMb.toFixed(0)} MB; ` +
        `client-go: ${n(idle['client-go'].cpuMs)} ms CPU, ${idle['client-go'].maxRssMb.toFixed(0)} MB); ` +
        `"go to exit" is the CPU the client spent from the start of the workload to its exit, read inside it: no idle run subtracted. ` +
        `For the library, the marginal RSS also gives the growth of V8's young generation (peak committed, above the idle start-up's). ` +
        (memoryLimit
          ? `Each client ran in a cgroup with a memory limit of ${memoryLimit.description}, as in a pod: Node sizes V8's heap from it, Go's runtime does not; ` +
            describeLimitReached(await memoryLimit.timesReached())
          : `No memory limit (${noLimitBecause}): Node sized V8's heap for this machine's ${n(totalmem() / 2 ** 30)} GB. `) +
        `Whole run: ${((Date.now() - started) / 1000).toFixed(0)} s.`,
    );
    const rows: string[][] = [];
    for (const [workload, row] of results) {
      for (const [client, result] of row) {
        const base = idle[baselineOf(client)];
        rows.push([
          workload.label,
          client.label,
          `${(result.wallMs / 1000).toFixed(1)} s${describeRejected(result.rejected)}`,
          `${n(result.writes)}: ${describeRequests(result.requests)}`,
          n(result.final.events),
          `${n(result.atReturn.counted)} / ${n(result.atReturn.expected)}`,
          describeExact(result),
          `${n(result.usage.cpuMs)} ms`,
          `${result.usage.maxRssMb.toFixed(0)} MB`,
          `${perWrite(result, base).toFixed(2)} ms`,
          `${workPerWrite(result).toFixed(2)} ms`,
          describeRssAbove(result, base),
        ]);
      }
    }
    printTable(
      'Per client and workload',
      [
        'workload',
        'client',
        'wall',
        'writes (by verb)',
        'Event objects',
        'count at return',
        'count exact?',
        'client CPU',
        'peak RSS',
        'marginal CPU / write',
        'CPU / write, go to exit',
        'marginal RSS',
      ],
      rows,
    );

    const ratioRows: string[][] = [];
    for (const [workload, row] of results) {
      const library = row.get(CLIENTS[0])!;
      for (const client of CLIENTS.slice(1)) {
        const other = row.get(client);
        if (!other || client.side !== 'client-go') continue;
        ratioRows.push([
          workload.label,
          client.label,
          `${(perWrite(library, idle.library) / perWrite(other, idle['client-go'])).toFixed(2)}×`,
          `${(workPerWrite(library) / workPerWrite(other)).toFixed(2)}×`,
          `${(rssAbove(library, idle.library) / rssAbove(other, idle['client-go'])).toFixed(2)}×`,
          `${n(library.final.missing)} vs ${n(other.final.missing)}`,
        ]);
      }
    }
    if (CHART !== 'none' && WORKLOADS.some((workload) => workload.chart)) {
      const file = resolve(REPO_ROOT, CHART);
      await mkdir(dirname(file), { recursive: true });
      const data = chartDataOf(
        results,
        `npm run bench:clientgo, ${new Date().toISOString()}: kube-apiserver ${await kubernetesVersion()} (local), ` +
          `client-go v0.35.4, ${availableParallelism()} cores, ${ROUNDS} round(s), ` +
          (memoryLimit ? `memory limit ${memoryLimit.description}.` : `no memory limit.`),
      );
      // The data beside the chart, so that it can be drawn again from this run (bench/clientgo-chart.ts).
      await writeFile(file.replace(/\.svg$/, '') + '.json', `${JSON.stringify(data)}\n`);
      await writeFile(file, renderClientGoChart(data));
      process.stderr.write(`chart written to ${file}\n`);
    }
    printTable(
      'Library ÷ client-go (marginal, lower is lighter for the library)',
      [
        'workload',
        'against',
        'CPU per write',
        'CPU per write, go to exit',
        'peak RSS',
        'occurrences missing at the end (library vs client-go)',
      ],
      ratioRows,
    );
    printDecoratorTable(results, idle.decorator);
  } finally {
    api.close();
    await controlPlane.stop();
    await rm(scratch, { recursive: true, force: true });
    await memoryLimit?.remove();
  }
}

await main();
