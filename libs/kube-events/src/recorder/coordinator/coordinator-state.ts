import type { PublishApiError, PublishCredentialError } from '../../errors.js';
import { credentialRetryDelay, PROBE_INTERVAL_MS } from '../pacing/index.js';
import type { Series } from '../series/index.js';

/**
 * Where the write coordinator stands, and every move between its states:
 * the one place that changes them, as `series-write-state.ts` is for each
 * series. The coordinator asks it what it may do, and applies these moves
 * as writes start and end, publishes come, `flush()` and shutdown run.
 *
 * | state                    | means                                                                                       | entered by                                     | left by                       |
 * |--------------------------|---------------------------------------------------------------------------------------------|------------------------------------------------|-------------------------------|
 * | `healthy`                | writes go out as their series and the budgets allow                                         | {@link answered}, a connection freed           | any other                     |
 * | `waiting-for-connection` | every connection carries a write: the writes the budgets let go wait here, in order         | {@link waitForConnection}                      | {@link nextWaiting}           |
 * | `refused`                | the server is unreachable, or the credentials fail: publishes are rejected at once as queued, but for one probe at a time ({@link tryProbe}); no write tries failed credentials before their backoff ({@link heldUntil}) | {@link unreachable}, {@link credentialsFailed} | {@link answered} |
 * | `draining`               | `flush()` runs: the scheduler lets every queued write go whatever the budgets and the connections, until the deadline | {@link drainUntil}                | {@link drained}               |
 * | `closed`                 | shut down: a publish is refused at once                                                     | {@link close}                                  | never                         |
 *
 * They stack (a recorder may drain while the server is unreachable):
 * `state` names the one that decides first, in the order `closed`,
 * `draining`, `refused`, `waiting-for-connection`, `healthy`.
 */
export type CoordinatorStateKind = 'healthy' | 'waiting-for-connection' | 'refused' | 'draining' | 'closed';

/** Why writes cannot reach the server now, and since when (epoch ms). */
export type ConnectionDown =
  /** No connection could be made, or connections keep closing unanswered. */
  | { readonly kind: 'unreachable'; readonly since: number; readonly why: PublishApiError }
  /** No credentials could be had from the kubeconfig: nothing is sent before `retryAt` (monotonic ms). */
  | {
      readonly kind: 'unauthenticated';
      readonly since: number;
      readonly why: PublishCredentialError;
      readonly failures: number;
      readonly retryAt: number;
    };

/** A series whose write waits for a connection, and the budget's mark when the budgets let it go. */
export interface WaitingWrite {
  readonly series: Series;
  mark: number;
}

/** The write coordinator's state: see {@link CoordinatorStateKind}. */
export class CoordinatorState {
  private connection: ConnectionDown | undefined;
  /** When the last attempt started or ended, or a probe was granted (monotonic ms). */
  private lastAttemptAt = -Infinity;
  private inFlight = 0;
  /** Series whose write the budgets let go while every connection was busy, with the budget's mark then. */
  private readonly waiting = new Map<Series, WaitingWrite>();
  /**
   * The same, in the order they came. Not the map's own order: a `Map`
   * walks every entry deleted from its front until it rebuilds its table,
   * and this one is taken from the front on every write.
   */
  private readonly waitingOrder: WaitingWrite[] = [];
  private drainDeadline: number | undefined;
  private shutDown = false;

  /** @param writesAtOnce how many writes the writer carries at once: the connections. */
  constructor(private readonly writesAtOnce: number) {}

  get state(): CoordinatorStateKind {
    if (this.shutDown) return 'closed';
    if (this.drainDeadline !== undefined) return 'draining';
    if (this.connection) return 'refused';
    return this.waiting.size ? 'waiting-for-connection' : 'healthy';
  }

  /** Why and since when writes cannot reach the server; undefined while they can. */
  get down(): ConnectionDown | undefined {
    return this.connection;
  }

  /** Writes in flight now, each holding one of the writer's connections while it lasts. */
  get writesInFlight(): number {
    return this.inFlight;
  }

  /** While `flush()` runs: when it gives up what is still queued (monotonic ms). */
  get drainingUntil(): number | undefined {
    return this.drainDeadline;
  }

  get closed(): boolean {
    return this.shutDown;
  }

  /** Whether a write may go now without waiting for a connection: one is free, or `flush()` writes whatever the pool. */
  mayTakeConnection(): boolean {
    return this.inFlight < this.writesAtOnce || this.drainDeadline !== undefined;
  }

  /** Whether the write of a publish that went on its way at once is truly on the wire, not queued in the writer's pool. */
  carriesAtOnce(): boolean {
    return this.inFlight <= this.writesAtOnce;
  }

  /** A write goes out at `now`: it holds a connection, and the server is tried. */
  writeStarted(now: number): void {
    this.inFlight++;
    this.lastAttemptAt = now;
  }

  /** A write came back at `now`, whatever its outcome. */
  writeEnded(now: number): void {
    this.inFlight--;
    this.lastAttemptAt = now;
  }

  /** The server answered: returns whether it had been down, so that what waits for it may go now. */
  answered(): boolean {
    const wasDown = this.connection !== undefined;
    this.connection = undefined;
    return wasDown;
  }

  /** No server could be reached: unreachable from now, or still since it first was. */
  unreachable(why: PublishApiError): void {
    if (this.connection?.kind !== 'unreachable') this.connection = { kind: 'unreachable', since: Date.now(), why };
  }

  /** The credentials failed again: no write tries them before the next, longer backoff has passed. */
  credentialsFailed(why: PublishCredentialError, now: number): void {
    const previous = this.connection?.kind === 'unauthenticated' ? this.connection : undefined;
    // Writes sent before the backoff began shared the run that failed (one authentication at a time): one failure.
    if (previous && now < previous.retryAt) return;
    const failures = (previous?.failures ?? 0) + 1;
    const retryAt = now + credentialRetryDelay(failures);
    this.connection = { kind: 'unauthenticated', since: previous?.since ?? Date.now(), why, failures, retryAt };
  }

  /** Until when no write may go, whatever its series: the credentials' backoff; undefined when nothing holds writes. */
  heldUntil(now: number): number | undefined {
    const down = this.connection;
    return down?.kind === 'unauthenticated' && now < down.retryAt ? down.retryAt : undefined;
  }

  /**
   * Whether a publish made now, while the server is down, tries it itself:
   * no write in flight, and none for a probe interval (unreachable) or the
   * credentials' backoff passed (unauthenticated). Granting one counts as
   * an attempt, so that the publishes right behind it do not probe too.
   */
  tryProbe(now: number): boolean {
    const down = this.connection;
    if (!down || this.inFlight > 0 || this.drainDeadline !== undefined) return false;
    if (down.kind === 'unauthenticated' ? now < down.retryAt : now - this.lastAttemptAt < PROBE_INTERVAL_MS)
      return false;
    this.lastAttemptAt = now;
    return true;
  }

  /** The budgets let the series' write go, but every connection is busy: it waits, in order, with the budget's `mark`. */
  waitForConnection(series: Series, mark: number): void {
    const waiting = this.waiting.get(series);
    if (waiting) {
      waiting.mark = mark;
      return;
    }
    const write = { series, mark };
    this.waiting.set(series, write);
    this.waitingOrder.push(write);
  }

  /** Whether the series waits for a connection. */
  isWaiting(series: Series): boolean {
    return this.waiting.has(series);
  }

  /** The first series waiting for a connection, when one is free, with its mark; it waits no more. */
  nextWaiting(): WaitingWrite | undefined {
    if (this.inFlight >= this.writesAtOnce) return undefined;
    const next = this.waitingOrder.shift();
    if (next) this.waiting.delete(next.series);
    return next;
  }

  /** `flush()` began: until `deadline` every queued write goes whatever the budgets; a second flush keeps the later. */
  drainUntil(deadline: number): void {
    this.drainDeadline = Math.max(this.drainDeadline ?? deadline, deadline);
    // What waited for a connection is scheduled again with the rest, in the draining mode.
    this.waiting.clear();
    this.waitingOrder.length = 0;
  }

  /** Nothing is left queued: `flush()` is done. */
  drained(): void {
    this.drainDeadline = undefined;
  }

  /** Shut down: nothing more is taken. */
  close(): void {
    this.shutDown = true;
  }
}
