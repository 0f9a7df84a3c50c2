import { Logger } from '@nestjs/common';
import { describeError, systemClock, type KubeEventsClock, type KubeEventsTimer } from 'nestjs-kube-events';
import { isConflict } from '../kube/api-status-code.js';
import { recordKey, type LeaderElectionRecord, type ResourceLock, type VersionedRecord } from './resource-lock.js';

/** client-go's defaults (and controller-runtime's): lease 15 s, renew deadline 10 s, retry every 2 s. */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** client-go's `JitterFactor`: a candidate waits between `retryPeriod` and `retryPeriod * (1 + 1.2)` between attempts. */
export const JITTER_FACTOR = 1.2;

/** What the elector tells its owner. */
export interface LeaderElectionCallbacks {
  /** This candidate now holds the Lease: start working. Called at most once. */
  onStartedLeading(): void;
  /**
   * It lost the Lease (it could not renew within the renew deadline, or
   * another holder took it): stop working at once. Called at most once, and
   * not on {@link LeaderElector.stop}.
   */
  onLostLeadership(reason: string): void;
  /** The holder this candidate observes changed (first observation included); `''` when nobody holds it. */
  onNewLeader?(identity: string): void;
}

/** Options of {@link LeaderElector}; the timings are client-go's `LeaderElectionConfig`. */
export interface LeaderElectorOptions {
  lock: ResourceLock;
  /** This candidate's identity, written as the Lease's `holderIdentity`. */
  identity: string;
  /** How long the others wait, after they last saw the Lease change, before they take it; whole seconds. @default 15_000 */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a failed renewal before it steps down. @default 10_000 */
  renewDeadlineMs?: number;
  /** How often a candidate tries to acquire, and the leader renews. @default 2_000 */
  retryPeriodMs?: number;
  /** Candidates wait `retryPeriod * (1 + random * jitterFactor)` between attempts. @default 1.2 */
  jitterFactor?: number;
  /** Release the Lease on {@link LeaderElector.stop} (client-go's `ReleaseOnCancel`). @default true */
  releaseOnStop?: boolean;
  callbacks: LeaderElectionCallbacks;
  /** Measures the lease duration, renew deadline and retry period: monotonic. @default the library's `systemClock` */
  clock?: KubeEventsClock;
  /** Milliseconds since the epoch, written as the Lease's `acquireTime` and `renewTime`. @default Date.now */
  wallTime?: () => number;
  /** In [0, 1); for the jitter. @default Math.random */
  random?: () => number;
  logger?: Pick<Logger, 'log' | 'warn' | 'error' | 'debug'>;
}

/** `candidate`: trying to acquire; `leading`: holds the Lease and renews it; `lost`: stepped down; `stopped`: {@link LeaderElector.stop} was called. */
export type LeaderElectorState = 'idle' | 'candidate' | 'leading' | 'lost' | 'stopped';

/**
 * Leader election on a Lease, following client-go's `tools/leaderelection`
 * (`LeaderElector.Run` with `ReleaseOnCancel`):
 *
 * - **Acquire**: a candidate reads the Lease every retry period (with
 *   jitter); it takes it when it does not exist, when nobody holds it, or
 *   when it has expired: when `leaseDurationSeconds` have passed since this
 *   candidate *observed* the record last change. Like client-go it trusts
 *   its own clock for that, never the `renewTime` written by another
 *   machine's clock.
 * - **Optimistic concurrency**: every write is a replace naming the
 *   `resourceVersion` read before it; `409` means another candidate won the
 *   race (or someone else wrote), and this one tries again later.
 * - **Renew**: the leader renews every retry period (first straight from its
 *   last observed version, else by reading the Lease again). A renewal that
 *   fails is retried every retry period; when none succeeds within the renew
 *   deadline, the leader steps down ({@link LeaderElectionCallbacks.onLostLeadership}).
 *   Unlike client-go, which keeps retrying until the deadline in that case
 *   too, it also steps down at once when it reads the Lease held by someone
 *   else: it cannot renew then, and another holder may be working already.
 * - **Release**: {@link stop} gives the Lease up (empty `holderIdentity`,
 *   `leaseDurationSeconds: 1`, as client-go's `release()`), so that the next
 *   candidate takes it on its next attempt instead of after the lease duration.
 *
 * It never goes back to being a candidate after it lost: its owner stops
 * (the sample operator exits, as controller-runtime does, and its pod restarts).
 */
export class LeaderElector {
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  private readonly lock: ResourceLock;
  private readonly jitterFactor: number;
  private readonly releaseOnStop: boolean;
  private readonly callbacks: LeaderElectionCallbacks;
  private readonly clock: KubeEventsClock;
  private readonly wallTime: () => number;
  private readonly random: () => number;
  private readonly logger: Pick<Logger, 'log' | 'warn' | 'error' | 'debug'>;

  private currentState: LeaderElectorState = 'idle';
  /** The record as last read or written, and when (by this clock) it was last seen to change. */
  private observed: LeaderElectionRecord | undefined;
  private observedKey: string | undefined;
  private observedTime = 0;
  private resourceVersion: string | undefined;
  private reportedLeader: string | undefined;
  private timer: KubeEventsTimer | undefined;
  private deadlineTimer: KubeEventsTimer | undefined;
  /** Counts renew rounds; answers of an earlier round (or from before a state change) are ignored. */
  private round = 0;
  private inFlight: Promise<unknown> | undefined;
  private stopping: Promise<void> | undefined;
  private lastProblem: string | undefined;
  /** When (by this clock) the last attempt settled, or the elector started: a candidate that stops making attempts shows here. */
  private lastSettled = 0;

  constructor(options: LeaderElectorOptions) {
    this.lock = options.lock;
    this.identity = options.identity;
    this.leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    this.jitterFactor = options.jitterFactor ?? JITTER_FACTOR;
    this.releaseOnStop = options.releaseOnStop ?? true;
    this.callbacks = options.callbacks;
    this.clock = options.clock ?? systemClock;
    this.wallTime = options.wallTime ?? Date.now;
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? new Logger('LeaderElection');
    const problem = leaderElectionTimingProblem(this, this.jitterFactor);
    if (problem) throw new RangeError(problem);
    if (!this.identity) throw new RangeError('the leader election identity must not be empty');
  }

  get state(): LeaderElectorState {
    return this.currentState;
  }

  /** Whether this candidate leads now (acquired, renewing, not stepped down). */
  get isLeader(): boolean {
    return this.currentState === 'leading';
  }

  /** The holder of the Lease as last observed; `''` when nobody holds it or nothing was read yet. */
  get leader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  /** `namespace/name` of the Lease. */
  describe(): string {
    return this.lock.describe();
  }

  /** Starts trying to acquire the Lease. */
  start(): void {
    if (this.currentState !== 'idle') return;
    this.currentState = 'candidate';
    this.lastSettled = this.clock.now();
    this.logger.log(`${this.identity}: attempting to acquire leader lease ${this.describe()}...`);
    this.acquireAttempt();
  }

  /**
   * Stops: no more attempts nor renewals; then, if this candidate holds the
   * Lease, releases it. Call it once the work that needed the Lease has
   * stopped: it keeps renewing until then. Idempotent.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  /**
   * client-go's `Check` (its healthz adaptor), for the liveness probe: an
   * error when this replica leads but has not renewed for longer than the
   * lease duration plus `toleranceMs`, which its renew deadline should have
   * prevented; and, for a candidate or a leader alike, when no attempt to
   * acquire or renew has settled for that long (each request is bounded, so
   * a stuck elector means something a restart fixes). In words and counts:
   * a probe's answer names no Lease.
   */
  check(toleranceMs: number): string | undefined {
    if (this.currentState !== 'leading' && this.currentState !== 'candidate') return undefined;
    const now = this.clock.now();
    const limit = this.leaseDurationMs + toleranceMs;
    if (this.currentState === 'leading' && now - this.observedTime > limit) {
      return `lease not renewed for ${now - this.observedTime} ms`;
    }
    if (now - this.lastSettled > limit) {
      return `no attempt on the lease has completed for ${now - this.lastSettled} ms`;
    }
    return undefined;
  }

  // -------------------------------------------------------------------------

  private acquireAttempt(): void {
    this.timer = undefined;
    void this.attempt().then((acquired) => {
      if (this.currentState !== 'candidate') return;
      this.maybeReportTransition();
      if (!acquired) {
        this.timer = this.clock.setTimer(this.jittered(this.retryPeriodMs), () => this.acquireAttempt(), true);
        return;
      }
      this.currentState = 'leading';
      this.logger.log(`${this.identity}: successfully acquired lease ${this.describe()}`);
      this.callbacks.onStartedLeading();
      if (this.currentState === 'leading')
        this.timer = this.clock.setTimer(this.retryPeriodMs, () => this.renewRound(), true);
    });
  }

  /** One renewal: tries now and every retry period until one succeeds, for at most the renew deadline. */
  private renewRound(): void {
    this.timer = undefined;
    const round = ++this.round;
    this.deadlineTimer = this.clock.setTimer(
      this.renewDeadlineMs,
      () => this.lose(round, `could not renew it within the renew deadline (${this.renewDeadlineMs} ms)`),
      true,
    );
    this.renewAttempt(round);
  }

  private renewAttempt(round: number): void {
    this.timer = undefined;
    void this.attempt().then((renewed) => {
      if (this.currentState !== 'leading' || round !== this.round) return;
      this.maybeReportTransition();
      if (renewed) {
        this.clock.clearTimer(this.deadlineTimer);
        this.deadlineTimer = undefined;
        this.timer = this.clock.setTimer(this.retryPeriodMs, () => this.renewRound(), true);
        return;
      }
      const holder = this.observed?.holderIdentity;
      if (holder && holder !== this.identity && this.isLeaseValid(this.clock.now())) {
        this.lose(round, `it is held by ${holder}`);
        return;
      }
      this.timer = this.clock.setTimer(this.retryPeriodMs, () => this.renewAttempt(round), true);
    });
  }

  private lose(round: number, reason: string): void {
    if (this.currentState !== 'leading' || round !== this.round) return;
    this.currentState = 'lost';
    this.round++;
    this.clearTimers();
    this.logger.error(`${this.identity}: lost leader lease ${this.describe()}: ${reason}`);
    this.callbacks.onLostLeadership(reason);
  }

  private async shutDown(): Promise<void> {
    const was = this.currentState;
    this.currentState = 'stopped';
    this.round++;
    this.clearTimers();
    if (was === 'idle') return;
    // Let an attempt in flight settle (it may have just acquired or renewed), within the renew deadline.
    if (this.inFlight) await this.within(this.renewDeadlineMs, this.inFlight);
    if (this.releaseOnStop && this.holdsLease()) await this.release();
  }

  /** client-go's `release()`: nobody holds it, and it expires a second after it was written. */
  private async release(): Promise<void> {
    if (this.resourceVersion === undefined || !this.observed) return;
    const now = this.wallTime();
    const released: LeaderElectionRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaderTransitions: this.observed.leaderTransitions,
    };
    try {
      const written = await this.within(this.renewDeadlineMs, this.lock.update(released, this.resourceVersion));
      if (written === 'timeout') {
        this.logger.warn(
          `${this.identity}: no answer to the release of ${this.describe()} within ${this.renewDeadlineMs} ms; it expires by itself`,
        );
        return;
      }
      this.setObserved(written);
      this.logger.log(`${this.identity}: released leader lease ${this.describe()}`);
    } catch (error) {
      this.logger.warn(
        `${this.identity}: could not release ${this.describe()}${isConflict(error) ? ' (it changed since it was last read)' : ''}: ` +
          `${describeError(error)}; it expires by itself`,
      );
    }
  }

  /** Runs {@link tryAcquireOrRenew}, remembering it as the attempt in flight. */
  private attempt(): Promise<boolean> {
    const attempt = this.tryAcquireOrRenew().finally(() => (this.lastSettled = this.clock.now()));
    this.inFlight = attempt;
    return attempt;
  }

  /**
   * client-go's `tryAcquireOrRenew`: acquires the Lease if it is free or
   * expired, renews it if this candidate holds it. True on success; never
   * rejects.
   */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    // The Lease's times are read by other machines and by people: wall time, unlike `now`.
    const wallNow = this.wallTime();
    const desired: LeaderElectionRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseDurationMs / 1000,
      acquireTime: wallNow,
      renewTime: wallNow,
      leaderTransitions: 0,
    };

    // 1. The fast path of a leader: replace the version it observed last, without reading first.
    if (this.holdsLease() && this.isLeaseValid(now) && this.resourceVersion !== undefined) {
      try {
        const written = await this.lock.update(
          { ...desired, acquireTime: this.observed!.acquireTime, leaderTransitions: this.observed!.leaderTransitions },
          this.resourceVersion,
        );
        this.setObserved(written);
        this.lastProblem = undefined;
        return true;
      } catch (error) {
        this.logger.debug(
          `${this.identity}: could not renew ${this.describe()} optimistically (${describeError(error)}); reading it`,
        );
      }
    }

    // 2. Read it, or create it.
    let current: VersionedRecord | undefined;
    try {
      current = await this.lock.get();
    } catch (error) {
      this.problem(`could not read lease ${this.describe()}: ${describeError(error)}`);
      return false;
    }
    if (!current) {
      try {
        this.setObserved(await this.lock.create(desired));
        this.lastProblem = undefined;
        return true;
      } catch (error) {
        if (isConflict(error))
          this.logger.debug(`${this.identity}: another candidate created ${this.describe()} first`);
        else this.problem(`could not create lease ${this.describe()}: ${describeError(error)}`);
        return false;
      }
    }

    // 3. Note when the record last changed (by this clock), and respect a holder whose lease has not expired.
    this.resourceVersion = current.resourceVersion;
    if (recordKey(current.record) !== this.observedKey) this.setObserved(current);
    if (current.record.holderIdentity && this.isLeaseValid(now) && !this.holdsLease()) {
      this.lastProblem = undefined;
      return false;
    }

    // 4. Take it, or renew it: a replace of the version just read.
    const record: LeaderElectionRecord = this.holdsLease()
      ? { ...desired, acquireTime: current.record.acquireTime, leaderTransitions: current.record.leaderTransitions }
      : { ...desired, leaderTransitions: current.record.leaderTransitions + 1 };
    try {
      this.setObserved(await this.lock.update(record, current.resourceVersion));
      this.lastProblem = undefined;
      return true;
    } catch (error) {
      if (isConflict(error)) this.logger.debug(`${this.identity}: lost the race for ${this.describe()} (409 Conflict)`);
      else this.problem(`could not update lease ${this.describe()}: ${describeError(error)}`);
      return false;
    }
  }

  private setObserved(versioned: VersionedRecord): void {
    this.observed = versioned.record;
    this.observedKey = recordKey(versioned.record);
    this.observedTime = this.clock.now();
    this.resourceVersion = versioned.resourceVersion;
  }

  /** client-go's `IsLeader`: the observed record names this candidate. */
  private holdsLease(): boolean {
    return this.observed?.holderIdentity === this.identity;
  }

  /** The observed record has not expired: less than its lease duration has passed since it was seen to change. */
  private isLeaseValid(now: number): boolean {
    return this.observedTime + (this.observed?.leaseDurationSeconds ?? 0) * 1000 > now;
  }

  private maybeReportTransition(): void {
    const holder = this.observed?.holderIdentity ?? '';
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    this.callbacks.onNewLeader?.(holder);
  }

  /** Logs an API problem once, not on every retry while it lasts. */
  private problem(message: string): void {
    if (message === this.lastProblem) return;
    this.lastProblem = message;
    this.logger.warn(`${this.identity}: ${message}`);
  }

  private jittered(periodMs: number): number {
    return periodMs + this.random() * this.jitterFactor * periodMs;
  }

  private clearTimers(): void {
    this.clock.clearTimer(this.timer);
    this.clock.clearTimer(this.deadlineTimer);
    this.timer = undefined;
    this.deadlineTimer = undefined;
  }

  /** `promise`'s value, or 'timeout' after `ms` (by this elector's clock). */
  private within<T>(ms: number, promise: Promise<T>): Promise<T | 'timeout'> {
    let handle: KubeEventsTimer | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      handle = this.clock.setTimer(ms, () => resolve('timeout'), true);
    });
    return Promise.race([promise, timeout]).finally(() => this.clock.clearTimer(handle));
  }
}

/**
 * client-go's checks of `NewLeaderElector`: leaseDuration > renewDeadline >
 * jitterFactor * retryPeriod > 0; and the Lease holds whole seconds.
 * Returns what is wrong, or undefined.
 */
export function leaderElectionTimingProblem(
  timings: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number },
  jitterFactor = JITTER_FACTOR,
): string | undefined {
  const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = timings;
  if (!Number.isInteger(leaseDurationMs) || leaseDurationMs < 1000 || leaseDurationMs % 1000 !== 0) {
    return `the lease duration must be a whole number of seconds (the Lease holds seconds), got ${leaseDurationMs} ms`;
  }
  if (!(retryPeriodMs > 0)) return `the retry period must be positive, got ${retryPeriodMs} ms`;
  if (!(leaseDurationMs > renewDeadlineMs)) {
    return `the lease duration (${leaseDurationMs} ms) must be greater than the renew deadline (${renewDeadlineMs} ms)`;
  }
  if (!(renewDeadlineMs > jitterFactor * retryPeriodMs)) {
    return `the renew deadline (${renewDeadlineMs} ms) must be greater than ${jitterFactor} x the retry period (${retryPeriodMs} ms)`;
  }
  return undefined;
}
