import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, EventsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { startControlPlane } from '../tools/control-plane/control-plane.js';
import { type CpuPinning, pinCpus } from './cpu-pinning.js';
import { median, printTable, ratio } from './measure.js';
import type { RotationResult, SideName, SideResult, SideTask } from './write-cpu-side.js';

/**
 * CPU per write of `EventRecorder.publish()` against a real kube-apiserver
 * over TLS (the local control plane, `tools/control-plane`, or the cluster
 * of `KUBE_EVENTS_E2E_KUBECONFIG`), beside a bare undici Pool sending the
 * same creates, each over HTTP/1.1 and over HTTP/2, and the recorder's
 * Events API called by hand (`events-api h1`: the HTTP layer alone, so that
 * what the recorder adds shows apart from it): (a) {@link WRITES}
 * creates, {@link CONCURRENCY} awaited at once, (b) {@link SEQUENTIAL}
 * creates one at a time, as a controller's reconcile loop sends them.
 * Each side runs in a fresh process (`write-cpu-side.ts`), so that only its
 * own CPU is counted (`process.cpuUsage()`: every thread, garbage
 * collection included), after a warm-up of its own; rounds rotate which
 * side goes first. After each, the Events are counted on the server, then
 * deleted, so that every round writes to an equally empty namespace. On
 * two CPUs or more, the sides run on a CPU of their own, the control plane
 * on the others ({@link pinCpus}; `WRITE_CPU_PIN=0` lets them share).
 */

const WRITES = 2_000;
const CONCURRENCY = 50;
const SEQUENTIAL = 1_000;
/** Writes before the measured ones, in each side's process; `WRITE_CPU_WARM_UP` sets another. */
const WARM_UP = Number(process.env.WRITE_CPU_WARM_UP ?? 200);
const ROUNDS = Number(process.env.WRITE_CPU_ROUNDS ?? 3);
const SIDES: readonly SideName[] = ['bare h2', 'bare h1', 'events-api h1', 'library h1', 'library h2'];
/**
 * With `WRITE_CPU_ROTATION=<rounds>`, then: the sides over HTTP/1.1 and the
 * bare HTTP/2 one, in one process, taking turns at blocks of {@link WRITES}
 * creates (see `SideTask.rotation`). Neighbouring blocks meet the server in
 * the same state, so their ratio moves less from run to run than that of
 * sides in processes of their own.
 */
const ROTATION_ROUNDS = Number(process.env.WRITE_CPU_ROTATION ?? 0);
const ROTATION_SIDES: readonly SideName[] = ['bare h2', 'bare h1', 'events-api h1', 'library h1'];

/** Runs one side (or a rotation) in a fresh process, on the client's CPU when there is one. */
function runSide<Result = SideResult>(task: SideTask, pinning: CpuPinning | undefined): Promise<Result> {
  const node = [
    process.execPath,
    '--expose-gc',
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

/** Medians of one side's rounds: µs of CPU per write, and of it in user mode and in the kernel. */
interface SideMedians {
  readonly micros: number;
  readonly userMicros: number;
  readonly systemMicros: number;
  /** µs of CPU per write of each round, in round order: how far one round strays from the median. */
  readonly rounds: number[];
  /** The most HTTP requests per measured write of any round: above 1, some writes were retried or read back. */
  readonly requestsPerWrite: number;
}

/** Rounds of every side, rotating which goes first; the medians of each. */
async function measure(
  kubeConfig: KubeConfig,
  kubeconfigPath: string,
  writes: number,
  concurrency: number,
  pinning: CpuPinning | undefined,
): Promise<Map<SideName, SideMedians>> {
  const measured = new Map<SideName, SideResult[]>(SIDES.map((side) => [side, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = SIDES.map((_, i) => SIDES[(i + round) % SIDES.length]);
    for (const side of order) {
      const namespace = namespaceOf(side);
      const result = await runSide(
        {
          side,
          kubeconfigPath,
          namespace,
          warmUp: WARM_UP,
          writes,
          concurrency,
        },
        pinning,
      );
      const { protocols } = result;
      const expected = side.endsWith('h2') ? 'h2' : 'http/1.1';
      if (protocols.length !== 1 || protocols[0] !== expected)
        throw new Error(`${side}: its connections spoke ${protocols.join(', ') || 'nothing'}, not ${expected}`);
      await expectAndClear(kubeConfig, namespace, WARM_UP + writes);
      measured.get(side)!.push(result);
    }
  }
  return new Map(
    [...measured].map(([side, results]) => [
      side,
      {
        micros: median(results.map((result) => result.userMicros + result.systemMicros)),
        userMicros: median(results.map((result) => result.userMicros)),
        systemMicros: median(results.map((result) => result.systemMicros)),
        rounds: results.map((result) => result.userMicros + result.systemMicros),
        requestsPerWrite: Math.max(...results.map((result) => result.requests / writes)),
      },
    ]),
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
      rotation: { sides: ROTATION_SIDES, rounds: ROTATION_ROUNDS },
    },
    pinning,
  );
  if (!protocols.includes('h2') || !protocols.includes('http/1.1'))
    throw new Error(`the rotation's connections spoke ${protocols.join(', ')}, not both h2 and http/1.1`);
  await expectAndClear(kubeConfig, namespace, ROTATION_SIDES.length * (WARM_UP + ROTATION_ROUNDS * WRITES));
  const [bareH2, bareH1, apiH1, libraryH1] = ROTATION_SIDES.map((side) => median(blocks[side]));
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
    for (const [label, writes, concurrency] of [
      [`${WRITES} creates, ${CONCURRENCY} at a time`, WRITES, CONCURRENCY],
      [`${SEQUENTIAL} creates, one at a time`, SEQUENTIAL, 1],
    ] as const) {
      const medians = await measure(kubeConfig, controlPlane.kubeconfigPath, writes, concurrency, pinning);
      const [bareH2, bareH1, apiH1, libraryH1, libraryH2] = SIDES.map((side) => medians.get(side)!.micros);
      // Round by round (each side's round r ran within the same rotation): how far one round's ratio strays.
      const bareH2Rounds = medians.get('bare h2')!.rounds;
      const perRound = medians.get('library h1')!.rounds.map((micros, round) => micros / bareH2Rounds[round]);
      splitRows.push([
        label,
        ...SIDES.map((side) => {
          const { userMicros, systemMicros, requestsPerWrite } = medians.get(side)!;
          return `${userMicros.toFixed(0)} / ${systemMicros.toFixed(0)} (${requestsPerWrite.toFixed(2)})`;
        }),
      ]);
      rows.push([
        label,
        bareH2.toFixed(0),
        bareH1.toFixed(0),
        apiH1.toFixed(0),
        libraryH1.toFixed(0),
        libraryH2.toFixed(0),
        ratio(libraryH1, bareH2),
        `${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)}×`,
        ratio(libraryH2, bareH2),
        ratio(libraryH1, bareH1),
        ratio(libraryH2, bareH1),
        ratio(apiH1, bareH1),
        ratio(libraryH1, apiH1),
      ]);
    }
    printTable(
      `CPU per write against kube-apiserver over TLS (${controlPlane.server}), EventRecorder.publish() vs a bare undici Pool ` +
        `sending the same creates, each over HTTP/1.1 (h1) and HTTP/2 (h2), and the recorder's Events API called by hand ` +
        `(events-api: its HTTP layer without the recorder); µs of process CPU per write, ` +
        `each side in a fresh process after ${WARM_UP} writes of warm-up; median of ${ROUNDS} rotated rounds; ` +
        (pinning
          ? `sides on CPU ${pinning.client}, the control plane on CPU(s) ${pinning.server}`
          : 'sides and control plane sharing every CPU'),
      [
        'writes',
        'bare h2',
        'bare h1',
        'events-api h1',
        'library h1',
        'library h2',
        'library h1 / bare h2',
        'the same, round by round',
        'library h2 / bare h2',
        'library h1 / bare h1',
        'library h2 / bare h1',
        'events-api h1 / bare h1',
        'library h1 / events-api h1',
      ],
      rows,
    );
    // Where a side's CPU goes: its own work (user), or system calls and the loopback's TCP (system).
    printTable(
      'The same rounds, user and system CPU apart: µs per write, user / system, each the median of its rounds; ' +
        'in brackets, the most HTTP requests per write of any round (1.00: no write was retried or read back)',
      ['writes', ...SIDES],
      splitRows,
    );
    if (ROTATION_ROUNDS > 0) await rotation(kubeConfig, controlPlane.kubeconfigPath, pinning);
  } finally {
    await controlPlane.stop();
    pinning?.release();
  }
}
