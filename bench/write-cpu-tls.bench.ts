import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, EventsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { startControlPlane } from '../tools/control-plane/control-plane.js';
import { type CpuPinning, pinCpus } from './cpu-pinning.js';
import { median, printTable, ratio } from './measure.js';
import type { RotationResult, SideMethod, SideName, SideResult, SideTask } from './write-cpu-side.js';

/**
 * CPU per write of `EventRecorder.publish()` against a real kube-apiserver
 * over TLS (the local control plane, `tools/control-plane`, or the cluster
 * of `KUBE_EVENTS_E2E_KUBECONFIG`): what a user pays per write, beside a
 * bare undici Pool at its defaults (`bare h2`: undici offers HTTP/2 and
 * the server takes it) sending the same creates, the same Pool over
 * HTTP/1.1 with the recorder's 8 connections (`bare h1`), and the
 * recorder's Events API called by hand (`events-api h1`: the HTTP layer
 * alone, so that what the recorder adds shows apart from it): (a)
 * {@link WRITES} creates, {@link CONCURRENCY} awaited at once, (b) as many
 * one at a time, as a controller's reconcile loop sends them.
 *
 * Each side runs in a fresh process (`write-cpu-side.ts`) with a pod's heap
 * ({@link NODE_FLAGS}), so that only its own CPU is counted
 * (`process.cpuUsage()`: every thread, garbage collection included), after
 * a warm-up of its own that pays its compilations; the recorder is the one
 * `KubeEventsModule.forRoot` provides in a Nest application context, from
 * the built package; every note names its object; nothing collects the
 * heap before the measured writes, so the collections a user's writes
 * cause fall in them. In a round the recorder runs next to each bare side,
 * and which of the pair goes first alternates; the headline is the median
 * of the rounds' own ratios. After each side, its Events are counted on
 * the server, then deleted, so that every side writes to an equally empty
 * namespace. On two CPUs or more, the sides run on a CPU of their own, the
 * control plane on the others ({@link pinCpus}; `WRITE_CPU_PIN=0` lets
 * them share). The switches of {@link SideMethod} put back one thing of
 * the method before this one each, to show what it changes.
 */

/** Measured writes per side and round (`WRITE_CPU_WINDOW`): enough that a mark-compact's share is in proportion. */
const WRITES = Number(process.env.WRITE_CPU_WINDOW ?? 10_000);
const CONCURRENCY = 50;
/** Writes before the measured ones, in each side's process (`WRITE_CPU_WARM_UP`): compilation is paid once, not per write. */
const WARM_UP = Number(process.env.WRITE_CPU_WARM_UP ?? 2_000);
const ROUNDS = Number(process.env.WRITE_CPU_ROUNDS ?? 6);
/** `burst` measures 50 at a time alone (`WRITE_CPU_PATTERNS`), without the one-at-a-time table. */
const PATTERNS = oneOf('WRITE_CPU_PATTERNS', ['all', 'burst'] as const);
/**
 * Node's flags for each side (`WRITE_CPU_NODE_FLAGS`, space-separated; empty
 * for Node's own sizing): a pod's heap of 256 MiB, whose young generation
 * is small, so that collections fall in every side's measured writes as
 * they do in a pod, not seldom as in a heap sized from this machine's memory.
 */
const NODE_FLAGS = (process.env.WRITE_CPU_NODE_FLAGS ?? '--max-semi-space-size=1 --max-old-space-size=256')
  .split(' ')
  .filter(Boolean);
const METHOD: SideMethod = {
  build: oneOf('WRITE_CPU_SIDE_BUILD', ['module', 'source'] as const),
  settle: oneOf('WRITE_CPU_SETTLE', ['0', '1'] as const) === '1',
  note: oneOf('WRITE_CPU_NOTE', ['object', 'fixed'] as const),
};
/** A round's order: the recorder next to each bare side; the reverse in every other round. */
const SIDES: readonly SideName[] = ['bare h2', 'library h1', 'bare h1', 'events-api h1'];
/**
 * With `WRITE_CPU_ROTATION=<rounds>`, then: the sides in one process,
 * taking turns at blocks of {@link WRITES} creates (see `SideTask.rotation`).
 * Neighbouring blocks meet the server in the same state, so their ratio
 * moves less from run to run than that of sides in processes of their own.
 */
const ROTATION_ROUNDS = Number(process.env.WRITE_CPU_ROTATION ?? 0);

/** The value of the environment variable `name`: one of `values`, the first when unset. */
function oneOf<const Value extends string>(name: string, values: readonly Value[]): Value {
  const value = process.env[name] ?? values[0];
  if (!values.includes(value as Value)) throw new Error(`${name} must be one of ${values.join(', ')}, got ${value}`);
  return value as Value;
}

/** Runs one side (or a rotation) in a fresh process, on the client's CPU when there is one. */
function runSide<Result = SideResult>(task: SideTask, pinning: CpuPinning | undefined): Promise<Result> {
  const node = [
    process.execPath,
    '--expose-gc',
    ...NODE_FLAGS,
    '--import',
    '@swc-node/register/esm-register',
    fileURLToPath(new URL('./write-cpu-side.ts', import.meta.url)),
    JSON.stringify(task),
  ];
  const [command, ...args] = pinning ? ['taskset', '-c', pinning.client, ...node] : node;
  // taskset execs node in its place: the IPC channel it inherits is node's.
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let result: Result | undefined;
    child.once('message', (message: Result) => (result = message));
    child.once('error', reject);
    child.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`${task.side}: its process exited with ${code} and no result`)),
    );
  });
}

const namespaceOf = (side: SideName) => `bench-${side.replace(' ', '-')}`;

/** Makes sure the namespace exists and holds no Event. */
async function emptyNamespace(kubeConfig: KubeConfig, name: string): Promise<void> {
  await kubeConfig
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name } } })
    .catch(() => undefined);
  await kubeConfig.makeApiClient(EventsV1Api).deleteCollectionNamespacedEvent({ namespace: name });
}

/** Counts the Events the side wrote, then deletes them. */
async function expectAndClear(kubeConfig: KubeConfig, namespace: string, expected: number): Promise<void> {
  const events = kubeConfig.makeApiClient(EventsV1Api);
  // Counted without reading them all: a rotation leaves tens of thousands, too large an answer to list at once.
  const { items, metadata } = await events.listNamespacedEvent({ namespace, limit: 1 });
  const held = items.length + (metadata?.remainingItemCount ?? 0);
  if (held !== expected) throw new Error(`${namespace}: the server holds ${held} Events, not ${expected}`);
  await events.deleteCollectionNamespacedEvent({ namespace });
}

/** One side's results, round by round. */
type Rounds = ReadonlyMap<SideName, readonly SideResult[]>;

/** µs of process CPU per write, user and system. */
const microsOf = (result: SideResult) => result.userMicros + result.systemMicros;

/** Rounds of every side, each in a fresh process; every other round in the reverse order. */
async function measure(
  kubeConfig: KubeConfig,
  kubeconfigPath: string,
  concurrency: number,
  pinning: CpuPinning | undefined,
): Promise<Rounds> {
  const measured = new Map<SideName, SideResult[]>(SIDES.map((side) => [side, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...SIDES].reverse() : SIDES;
    for (const side of order) {
      const namespace = namespaceOf(side);
      const task = { side, kubeconfigPath, namespace, warmUp: WARM_UP, writes: WRITES, concurrency, method: METHOD };
      const result = await runSide(task, pinning);
      const { protocols } = result;
      const expected = side.endsWith('h2') ? 'h2' : 'http/1.1';
      if (protocols.length !== 1 || protocols[0] !== expected)
        throw new Error(`${side}: its connections spoke ${protocols.join(', ') || 'nothing'}, not ${expected}`);
      await expectAndClear(kubeConfig, namespace, WARM_UP + WRITES);
      measured.get(side)!.push(result);
    }
  }
  return measured;
}

/** `side`'s µs of CPU per write over those of `baseline`, round by round: sides of one round are paired. */
function pairedRatios(rounds: Rounds, side: SideName, baseline: SideName): number[] {
  const baselineRounds = rounds.get(baseline)!;
  return rounds.get(side)!.map((result, round) => microsOf(result) / microsOf(baselineRounds[round]));
}

/** The median of the rounds' ratios of `side` to `baseline`, e.g. `1.12×`. */
const medianRatio = (rounds: Rounds, side: SideName, baseline: SideName) =>
  `${median(pairedRatios(rounds, side, baseline)).toFixed(2)}×`;

/** The least and the most of the rounds' ratios of `side` to `baseline`. */
function ratioRange(rounds: Rounds, side: SideName, baseline: SideName): string {
  const ratios = pairedRatios(rounds, side, baseline);
  return `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×`;
}

/** The method in words, for the tables' titles. */
function methodInWords(pinning: CpuPinning | undefined): string {
  const changed = [
    METHOD.build === 'source' && 'WRITE_CPU_SIDE_BUILD=source (a recorder built by hand over an Events API from src/)',
    METHOD.settle && 'WRITE_CPU_SETTLE=1 (two full collections before the measured writes)',
    METHOD.note === 'fixed' && 'WRITE_CPU_NOTE=fixed (the same note on every write)',
  ].filter(Boolean);
  return (
    `each side in a fresh process (node ${NODE_FLAGS.join(' ') || 'at its own heap sizing'}), ${WARM_UP} writes of warm-up, ` +
    `then ${WRITES} measured; ${ROUNDS} rounds; ` +
    (changed.length ? `method changed: ${changed.join('; ')}; ` : '') +
    (pinning
      ? `sides on CPU ${pinning.client}, the control plane on CPU(s) ${pinning.server}`
      : 'sides and control plane sharing every CPU')
  );
}

/** The sides in one process, taking turns (`WRITE_CPU_ROTATION`): each one's median, and the recorder's ratios. */
async function rotation(kubeConfig: KubeConfig, kubeconfigPath: string, pinning: CpuPinning | undefined) {
  const namespace = 'bench-rotation';
  await emptyNamespace(kubeConfig, namespace);
  const { blocks, protocols } = await runSide<RotationResult>(
    {
      side: 'library h1',
      kubeconfigPath,
      namespace,
      warmUp: WARM_UP,
      writes: WRITES,
      concurrency: CONCURRENCY,
      method: METHOD,
      rotation: { sides: SIDES, rounds: ROTATION_ROUNDS },
    },
    pinning,
  );
  if (!protocols.includes('h2') || !protocols.includes('http/1.1'))
    throw new Error(`the rotation's connections spoke ${protocols.join(', ')}, not both h2 and http/1.1`);
  await expectAndClear(kubeConfig, namespace, SIDES.length * (WARM_UP + ROTATION_ROUNDS * WRITES));
  const [bareH2, libraryH1, bareH1, apiH1] = SIDES.map((side) => median(blocks[side]));
  // Round by round, the recorder against its own Events API: how far one round's ratio strays.
  const perRound = blocks['library h1'].map((micros, round) => micros / blocks['events-api h1'][round]);
  printTable(
    `The same sides in one process, taking turns at blocks of ${WRITES} creates, ${CONCURRENCY} at a time ` +
      `(${ROTATION_ROUNDS} rounds rotating which goes first, after ${WARM_UP} writes of warm-up each); µs of process CPU per write, medians`,
    [
      'bare h2',
      'bare h1',
      'events-api h1',
      'library h1',
      'library h1 / bare h2',
      'library h1 / bare h1',
      'library h1 / events-api h1',
      'the same, round by round',
    ],
    [
      [
        bareH2.toFixed(0),
        bareH1.toFixed(0),
        apiH1.toFixed(0),
        libraryH1.toFixed(0),
        ratio(libraryH1, bareH2),
        ratio(libraryH1, bareH1),
        ratio(libraryH1, apiH1),
        `${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)}×`,
      ],
    ],
  );
}

export async function writeCpuOverTls(): Promise<void> {
  // Before the control plane starts, so that its processes inherit the server's CPUs.
  const pinning = pinCpus();
  const controlPlane = await startControlPlane();
  try {
    const kubeConfig = controlPlane.kubeConfig();
    for (const side of SIDES) await emptyNamespace(kubeConfig, namespaceOf(side));
    const rows: string[][] = [];
    const splitRows: string[][] = [];
    const patterns: [label: string, concurrency: number][] = [
      [`${WRITES} creates, ${CONCURRENCY} at a time`, CONCURRENCY],
    ];
    if (PATTERNS === 'all') patterns.push([`${WRITES} creates, one at a time`, 1]);
    for (const [label, concurrency] of patterns) {
      const rounds = await measure(kubeConfig, controlPlane.kubeconfigPath, concurrency, pinning);
      const sideMedian = (side: SideName) => median(rounds.get(side)!.map(microsOf)).toFixed(0);
      rows.push([
        label,
        medianRatio(rounds, 'library h1', 'bare h2'),
        ratioRange(rounds, 'library h1', 'bare h2'),
        medianRatio(rounds, 'library h1', 'bare h1'),
        ratioRange(rounds, 'library h1', 'bare h1'),
        medianRatio(rounds, 'library h1', 'events-api h1'),
        medianRatio(rounds, 'events-api h1', 'bare h1'),
        ...SIDES.map(sideMedian),
      ]);
      splitRows.push([
        label,
        ...SIDES.map((side) => {
          const results = rounds.get(side)!;
          const user = median(results.map((result) => result.userMicros));
          const system = median(results.map((result) => result.systemMicros));
          const requestsPerWrite = Math.max(...results.map((result) => result.requests / WRITES));
          const connections = Math.max(...results.map((result) => result.connections));
          return `${user.toFixed(0)} / ${system.toFixed(0)} (${requestsPerWrite.toFixed(2)}, ${connections})`;
        }),
      ]);
    }
    printTable(
      `CPU per write against kube-apiserver over TLS (${controlPlane.server}): the recorder of KubeEventsModule.forRoot ` +
        `(library h1) against a bare undici Pool at its defaults (bare h2), the same Pool over HTTP/1.1 with 8 connections ` +
        `(bare h1) and the recorder's Events API called by hand (events-api h1); ratios: the median of the rounds' own ` +
        `(sides of a round paired), and their least and most; then each side's median µs of process CPU per write; ` +
        methodInWords(pinning),
      [
        'writes',
        'library h1 / bare h2',
        'round by round',
        'library h1 / bare h1',
        'round by round',
        'library h1 / events-api h1',
        'events-api h1 / bare h1',
        ...SIDES,
      ],
      rows,
    );
    // Where a side's CPU goes: its own work (user), or system calls and the loopback's TCP (system).
    printTable(
      'The same rounds, user and system CPU apart: µs per write, user / system, each the median of its rounds; ' +
        'in brackets, the most HTTP requests per measured write of any round (1.00: no write was retried or read back) ' +
        'and the most connections a side made',
      ['writes', ...SIDES],
      splitRows,
    );
    if (ROTATION_ROUNDS > 0) await rotation(kubeConfig, controlPlane.kubeconfigPath, pinning);
  } finally {
    await controlPlane.stop();
    pinning?.release();
  }
}
