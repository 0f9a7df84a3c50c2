import type { PublishApiError, PublishCredentialError } from '../../errors.js';
import { credentialRetryDelay, PROBE_INTERVAL_MS } from '../pacing/index.js';
import type { Series } from '../series/index.js';

/** What the write coordinator does with publishes and queued writes. */
export type CoordinatorMode =
  /** Writes go out as their series, the budgets and the connections allow. */
  | { readonly kind: 'running' }
  /** `flush()` runs: the scheduler lets every queued write go whatever the budgets and the connections, until `until` (monotonic ms). */
  | { readonly kind: 'draining'; readonly until: number }
  /** Shut down: a publish is refused at once; nothing leaves this mode. */
  | { readonly kind: 'closed' };

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

/**
 * Whether writes reach the server: `up`, or down (see {@link ConnectionDown}).
 * While down, publishes are rejected at once as queued, but for one probe at
 * a time: unreachable, one a probe interval after the last write was tried
 * (`lastTriedAt`, monotonic ms); unauthenticated, one once the credentials'
 * backoff has passed, before which no write goes at all.
 */
export type ConnectionState =
  | { readonly kind: 'up' }
  | (Extract<ConnectionDown, { kind: 'unreachable' }> & { lastTriedAt: number })
  | Extract<ConnectionDown, { kind: 'unauthenticated' }>;

/** A series whose write waits for a connection, and the budget's mark when the budgets let it go. */
export interface WaitingWrite {
  readonly series: Series;
  mark: number;
}

const RUNNING: CoordinatorMode = { kind: 'running' };
const CLOSED: CoordinatorMode = { kind: 'closed' };
const UP: ConnectionState = { kind: 'up' };

/**
 * Where the write coordinator stands, and every move of it: its
 * {@link CoordinatorMode}, its {@link ConnectionState}, and the writer's
 * connections (writes in flight, and series waiting for one). The
 * coordinator asks it what it may do, and applies these moves as writes
 * start and end, publishes come, `flush()` and shutdown run. Each question
 * reads the mode and the connection as they are, rather than fields that
 * together make a state.
 */
export class CoordinatorState {
  private currentMode: CoordinatorMode = RUNNING;
  private currentConnection: ConnectionState = UP;
  private inFlight = 0;
  /**
   * Series whose write the budgets let go while every connection was busy,
   * in the order they came, with the budget's mark then.
   */
  private readonly waiting = new Map<Series, WaitingWrite>();

  /** @param writesAtOnce how many writes the writer carries at once: the connections. */
  constructor(private readonly writesAtOnce: number) {}

  /** Running, draining for `flush()`, or closed. */
  get mode(): CoordinatorMode {
    return this.currentMode;
  }

  /** Whether writes reach the server. */
  get connection(): ConnectionState {
    return this.currentConnection;
  }

  /** Why and since when writes cannot reach the server; undefined while they can. */
  get down(): ConnectionDown | undefined {
    const connection = this.currentConnection;
    switch (connection.kind) {
      case 'up':
        return undefined;
      case 'unreachable':
      case 'unauthenticated':
        return connection;
    }
  }

  /** Writes in flight now, each holding one of the writer's connections while it lasts. */
  get writesInFlight(): number {
    return this.inFlight;
  }

  /** While `flush()` runs: when it gives up what is still queued (monotonic ms). */
  get drainingUntil(): number | undefined {
    const mode = this.currentMode;
    switch (mode.kind) {
      case 'draining':
        return mode.until;
      case 'running':
      case 'closed':
        return undefined;
    }
  }

  /** Shut down: a publish is refused at once. */
  get closed(): boolean {
    return this.currentMode.kind === 'closed';
  }

  /** Whether a write may go now without waiting for a connection: one is free, or `flush()` writes whatever the pool. */
  mayTakeConnection(): boolean {
    switch (this.currentMode.kind) {
      case 'draining':
        return true;
      case 'running':
      case 'closed':
        return this.inFlight < this.writesAtOnce;
    }
  }

  /** Whether the write of a publish that went on its way at once is truly on the wire, not queued in the writer's pool. */
  carriesAtOnce(): boolean {
    return this.inFlight <= this.writesAtOnce;
  }

  /** A write goes out at `now`: it holds a connection, and the server is tried. */
  writeStarted(now: number): void {
    this.inFlight++;
    this.tried(now);
  }

  /** A write came back at `now`, whatever its outcome. */
  writeEnded(now: number): void {
    this.inFlight--;
    this.tried(now);
  }

  /** The server answered: returns whether it had been down, so that what waits for it may go now. */
  answered(): boolean {
    const wasDown = this.currentConnection.kind !== 'up';
    this.currentConnection = UP;
    return wasDown;
  }

  /** No server could be reached by a write that ended at `now`: unreachable from now, or still since it first was. */
  unreachable(why: PublishApiError, now: number): void {
    const connection = this.currentConnection;
    if (connection.kind === 'unreachable') connection.lastTriedAt = now;
    else this.currentConnection = { kind: 'unreachable', since: Date.now(), why, lastTriedAt: now };
  }

  /** The credentials failed again: no write tries them before the next, longer backoff has passed. */
  credentialsFailed(why: PublishCredentialError, now: number): void {
    const connection = this.currentConnection;
    const previous = connection.kind === 'unauthenticated' ? connection : undefined;
    // Writes sent before the backoff began shared the run that failed (one authentication at a time): one failure.
    if (previous && now < previous.retryAt) return;
    const failures = (previous?.failures ?? 0) + 1;
    const retryAt = now + credentialRetryDelay(failures);
    this.currentConnection = { kind: 'unauthenticated', since: previous?.since ?? Date.now(), why, failures, retryAt };
  }

  /** Until when no write may go, whatever its series: the credentials' backoff; undefined when nothing holds writes. */
  heldUntil(now: number): number | undefined {
    const connection = this.currentConnection;
    switch (connection.kind) {
      case 'unauthenticated':
        return now < connection.retryAt ? connection.retryAt : undefined;
      case 'up':
      case 'unreachable':
        return undefined;
    }
  }

  /**
   * Whether a publish made now, while the server is down, tries it itself:
   * no write in flight, and none for a probe interval (unreachable) or the
   * credentials' backoff passed (unauthenticated). Granting one counts as
   * an attempt, so that the publishes right behind it do not probe too.
   */
  tryProbe(now: number): boolean {
    if (this.inFlight > 0 || this.currentMode.kind === 'draining') return false;
    const connection = this.currentConnection;
    switch (connection.kind) {
      case 'up':
        return false;
      case 'unauthenticated':
        return now >= connection.retryAt;
      case 'unreachable':
        if (now - connection.lastTriedAt < PROBE_INTERVAL_MS) return false;
        connection.lastTriedAt = now;
        return true;
    }
  }

  /** The budgets let the series' write go, but every connection is busy: it waits, in order, with the budget's `mark`. */
  waitForConnection(series: Series, mark: number): void {
    const waiting = this.waiting.get(series);
    if (waiting) waiting.mark = mark;
    else this.waiting.set(series, { series, mark });
  }

  /** Whether the series waits for a connection. */
  isWaiting(series: Series): boolean {
    return this.waiting.has(series);
  }

  /** The first series waiting for a connection, when one is free, with its mark; it waits no more. */
  nextWaiting(): WaitingWrite | undefined {
    if (this.inFlight >= this.writesAtOnce) return undefined;
    const next = this.waiting.values().next().value;
    if (next) this.waiting.delete(next.series);
    return next;
  }

  /**
   * `flush()` began: until `deadline` every queued write goes whatever the
   * budgets; a second flush keeps the later. Closed, nothing is queued
   * (the shutdown flushed it, and publishes are refused): nothing to drain.
   */
  drainUntil(deadline: number): void {
    // What waited for a connection is scheduled again with the rest, in the draining mode.
    this.waiting.clear();
    const mode = this.currentMode;
    switch (mode.kind) {
      case 'running':
        this.currentMode = { kind: 'draining', until: deadline };
        return;
      case 'draining':
        this.currentMode = { kind: 'draining', until: Math.max(mode.until, deadline) };
        return;
      case 'closed':
        return;
    }
  }

  /** Nothing is left queued: `flush()` is done. */
  drained(): void {
    if (this.currentMode.kind === 'draining') this.currentMode = RUNNING;
  }

  /** Shut down: nothing more is taken. */
  close(): void {
    this.currentMode = CLOSED;
  }

  /** A write was tried at `now`: while the server is unreachable, the next probe waits a probe interval from it. */
  private tried(now: number): void {
    if (this.currentConnection.kind === 'unreachable') this.currentConnection.lastTriedAt = now;
  }
}
