// What the soak's replicas said they did, and the verdict against what the API server holds at the end.
// A replica's lines are its own account (see soak-replica.ts); the server's Events are read with the admin's client.

/** One replica process's account of one object. */
interface ObjectTally {
  made: number;
  resolved: number;
  queued: number;
  /** Rejected with a PublishError that is not queued: refused, dropped or failed for good. */
  failed: number;
  /** Rejected with something that is not a PublishError. */
  other: number;
  dropped: number;
}

/** One replica process's account, from its lines. */
export class ProcessLedger {
  readonly objects = new Map<number, ObjectTally>();
  readonly dropCauses = new Map<string, number>();
  /** Failed writes by what they met (a status code, an error's name): the faults the replica felt. */
  readonly failedWrites = new Map<string, number>();
  readonly unhandled: string[] = [];
  slowestSettleMs = 0;
  peakHeapBytes = 0;
  peakRssBytes = 0;
  /** Killed (SIGKILL) before it could stop: what it held queued died with it. */
  killed = false;

  constructor(public name: string) {}

  /** Reads one line of the replica's stdout. */
  read(line: string): void {
    const [tag, ...fields] = line.split(' ');
    switch (tag) {
      case 'm':
        this.tally(Number(fields[0])).made++;
        break;
      case 's': {
        const tally = this.tally(Number(fields[0]));
        if (fields[1] === 'r') tally.resolved++;
        else if (fields[1] === 'q') tally.queued++;
        else if (fields[1] === 'f') tally.failed++;
        else tally.other++;
        this.slowestSettleMs = Math.max(this.slowestSettleMs, Number(fields[2]));
        break;
      }
      case 'd':
        this.tally(Number(fields[0])).dropped += Number(fields[1]);
        this.dropCauses.set(fields[2], (this.dropCauses.get(fields[2]) ?? 0) + Number(fields[1]));
        break;
      case 'w':
        this.failedWrites.set(fields[0], (this.failedWrites.get(fields[0]) ?? 0) + 1);
        break;
      case 'mem':
        this.peakHeapBytes = Math.max(this.peakHeapBytes, Number(fields[0]));
        this.peakRssBytes = Math.max(this.peakRssBytes, Number(fields[1]));
        break;
      case 'c':
        // A later create about an object: with SOAK_SHOW_CREATES, what led to it.
        if (process.env.SOAK_SHOW_CREATES) console.log(`${this.name}: create ${fields.join(' ')}`);
        break;
      case 'unhandled':
        this.unhandled.push(fields.join(' '));
        break;
    }
  }

  /** Publishes made and not settled: none once the replica stopped on its own. */
  unsettled(): number {
    let count = 0;
    for (const tally of this.objects.values())
      count += tally.made - tally.resolved - tally.queued - tally.failed - tally.other;
    return count;
  }

  tallyOf(index: number): Readonly<ObjectTally> | undefined {
    return this.objects.get(index);
  }

  private tally(index: number): ObjectTally {
    let tally = this.objects.get(index);
    if (!tally) this.objects.set(index, (tally = { made: 0, resolved: 0, queued: 0, failed: 0, other: 0, dropped: 0 }));
    return tally;
  }
}

/** What the server holds about one object: its Events' counts, and each one in a line (for a finding). */
export interface ServerSeries {
  readonly counts: readonly number[];
  readonly described: readonly string[];
}

export interface SoakLimits {
  readonly timeoutMs: number;
  readonly peakHeapBytes: number;
}

/** One object's verdict. */
interface SeriesVerdict {
  readonly index: number;
  readonly events: number;
  readonly count: number;
  /** Occurrences that must be on the server: resolved by any replica, or told queued by one that lived to stop. */
  readonly owed: number;
  /** Publishes made, by every replica: the most the server may count. */
  readonly made: number;
}

/** The soak's verdict: every finding that fails it, and the figures for the report. */
export interface Verdict {
  readonly failures: string[];
  readonly series: number;
  readonly made: number;
  readonly resolved: number;
  readonly queued: number;
  readonly failed: number;
  readonly counted: number;
  readonly duplicates: number;
  readonly lost: number;
  readonly invented: number;
  readonly dropCauses: Record<string, number>;
  readonly failedWrites: Record<string, number>;
  readonly slowestSettleMs: number;
  readonly peakHeapMiB: number;
}

/** Judges the replicas' accounts against the server's Events, object by object. */
export function judge(
  ledgers: readonly ProcessLedger[],
  server: ReadonlyMap<number, ServerSeries>,
  objects: number,
  limits: SoakLimits,
): Verdict {
  const failures: string[] = [];
  const verdicts: SeriesVerdict[] = [];
  for (let index = 0; index < objects; index++) {
    let owed = 0;
    let made = 0;
    for (const ledger of ledgers) {
      const tally = ledger.tallyOf(index);
      if (!tally) continue;
      made += tally.made;
      // A queued occurrence is owed unless its process was killed, or it was given up (and said so, with a cause).
      owed += tally.resolved + (ledger.killed ? 0 : Math.max(0, tally.queued - tally.dropped));
    }
    if (made === 0) continue;
    const counts = server.get(index)?.counts ?? [];
    verdicts.push({ index, events: counts.length, count: counts.reduce((sum, count) => sum + count, 0), owed, made });
  }
  const duplicates = verdicts.filter((verdict) => verdict.events > 1);
  const lost = verdicts.filter((verdict) => verdict.count < verdict.owed);
  const invented = verdicts.filter((verdict) => verdict.count > verdict.made);
  if (duplicates.length > 0)
    failures.push(
      `${duplicates.length} series with more than one Event: ${describe(duplicates.slice(0, 5))}; ` +
        duplicates
          .slice(0, 3)
          .map((verdict) => `#${verdict.index}: ${server.get(verdict.index)!.described.join('; ')}`)
          .join(' / '),
    );
  if (lost.length > 0) failures.push(`${lost.length} series count less than they owe: ${describe(lost.slice(0, 5))}`);
  if (invented.length > 0)
    failures.push(`${invented.length} series count more than was published: ${describe(invented.slice(0, 5))}`);

  const totals = { made: 0, resolved: 0, queued: 0, failed: 0 };
  const dropCauses: Record<string, number> = {};
  const failedWrites: Record<string, number> = {};
  let slowestSettleMs = 0;
  let peakHeapBytes = 0;
  for (const ledger of ledgers) {
    for (const tally of ledger.objects.values()) {
      totals.made += tally.made;
      totals.resolved += tally.resolved;
      totals.queued += tally.queued;
      totals.failed += tally.failed;
      if (tally.other > 0) failures.push(`${ledger.name}: ${tally.other} publish(es) rejected with no PublishError`);
    }
    for (const [cause, count] of ledger.dropCauses) dropCauses[cause] = (dropCauses[cause] ?? 0) + count;
    for (const [what, count] of ledger.failedWrites) failedWrites[what] = (failedWrites[what] ?? 0) + count;
    if (!ledger.killed && ledger.unsettled() > 0)
      failures.push(`${ledger.name}: ${ledger.unsettled()} publish(es) never settled`);
    for (const line of ledger.unhandled) failures.push(`${ledger.name}: unhandled ${line}`);
    slowestSettleMs = Math.max(slowestSettleMs, ledger.slowestSettleMs);
    peakHeapBytes = Math.max(peakHeapBytes, ledger.peakHeapBytes);
  }
  if (slowestSettleMs > limits.timeoutMs + 1_000)
    failures.push(
      `a publish took ${slowestSettleMs} ms to settle, past timeout + 1 s (${limits.timeoutMs + 1_000} ms)`,
    );
  if (peakHeapBytes > limits.peakHeapBytes)
    failures.push(`a replica's heap reached ${mib(peakHeapBytes)} MiB, past ${mib(limits.peakHeapBytes)} MiB`);

  return {
    failures,
    series: verdicts.length,
    ...totals,
    counted: verdicts.reduce((sum, verdict) => sum + verdict.count, 0),
    duplicates: duplicates.length,
    lost: lost.reduce((sum, verdict) => sum + verdict.owed - verdict.count, 0),
    invented: invented.reduce((sum, verdict) => sum + verdict.count - verdict.made, 0),
    dropCauses,
    failedWrites,
    slowestSettleMs,
    peakHeapMiB: mib(peakHeapBytes),
  };
}

const describe = (verdicts: readonly SeriesVerdict[]) =>
  verdicts
    .map(
      ({ index, events, count, owed, made }) =>
        `#${index} (${events} Events, count ${count}, owed ${owed}, made ${made})`,
    )
    .join(', ');

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
