import type { KubeEventsClock } from 'nestjs-kube-events';
import { FakeClock } from 'nestjs-kube-events/testing';
import { LeaderElector, leaderElectionTimingProblem, type LeaderElectorOptions } from './leader-elector.js';
import { apiError, FakeLeaseLock } from './testing/fake-lease-lock.js';
import { flush } from '../../../../test/support/flush.js';

// client-go's defaults: lease 15 s, renew deadline 10 s, retry period 2 s.
const LEASE = 15_000;
const RENEW = 10_000;
const RETRY = 2_000;
/** The wall time when the fake clock starts (at 0): what the Lease's times are written from. */
const T0 = 1_800_000_000_000;

interface Candidate {
  elector: LeaderElector;
  started: number[];
  lost: { at: number; reason: string }[];
  leaders: string[];
}

describe('LeaderElector', () => {
  let clock: FakeClock;
  let lock: FakeLeaseLock;
  const quiet = { log: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

  beforeEach(() => {
    clock = new FakeClock();
    lock = new FakeLeaseLock();
  });

  /** Lets the fake lock's answers (microtasks) and what follows them run. */
  const settle = flush;

  /** Moves the clock forward by `ms`, letting the fake lock's answers (and what follows them) arrive as it goes. */
  const advance = (ms: number): Promise<void> => clock.advance(ms);

  /** The wall time: moves with the fake clock, from {@link T0}. */
  const wallTime = (): number => T0 + clock.now();

  function candidate(identity: string, options: Partial<LeaderElectorOptions> = {}): Candidate {
    const result: Candidate = { started: [], lost: [], leaders: [], elector: undefined! };
    result.elector = new LeaderElector({
      lock,
      identity,
      clock,
      wallTime,
      random: () => 0, // no jitter unless a test asks for it: attempts exactly every retry period
      logger: quiet,
      callbacks: {
        onStartedLeading: () => result.started.push(clock.now()),
        onLostLeadership: (reason) => result.lost.push({ at: clock.now(), reason }),
        onNewLeader: (leader) => result.leaders.push(leader),
      },
      ...options,
    });
    return result;
  }

  /** A Lease held by someone else, as written now. */
  function heldBy(holderIdentity: string, renewTime = wallTime()): void {
    lock.write({
      holderIdentity,
      leaseDurationSeconds: LEASE / 1000,
      acquireTime: renewTime,
      renewTime,
      leaderTransitions: 3,
    });
  }

  describe('acquiring', () => {
    test('an absent Lease: creates it at once, holding it for the lease duration', async () => {
      const a = candidate('a');
      a.elector.start();
      await settle();

      expect(a.started).toEqual([0]);
      expect(a.elector.isLeader).toBe(true);
      expect(a.elector.leader).toBe('a');
      expect(a.leaders).toEqual(['a']);
      expect(lock.calls).toEqual(['get', 'create']);
      expect(lock.record).toEqual({
        holderIdentity: 'a',
        leaseDurationSeconds: 15,
        acquireTime: T0,
        renewTime: T0,
        leaderTransitions: 0,
      });
    });

    test('a fresh Lease of another holder: never, as long as the holder renews it', async () => {
      heldBy('other');
      const b = candidate('b');
      b.elector.start();
      await settle();
      for (let i = 0; i < 30; i++) {
        await advance(RETRY);
        heldBy('other'); // the holder renews: the record changes
      }

      expect(b.started).toEqual([]);
      expect(b.elector.isLeader).toBe(false);
      expect(b.elector.leader).toBe('other');
      expect(b.leaders).toEqual(['other']);
      expect(lock.calls.filter((call) => call !== 'get')).toEqual([]); // a follower only reads
      expect(lock.record?.holderIdentity).toBe('other');
    });

    test('an expired Lease: taken once the lease duration has passed since the candidate last saw it change', async () => {
      heldBy('crashed'); // written once, then never renewed
      const b = candidate('b');
      b.elector.start();
      await settle();

      await advance(LEASE - 10);
      expect(b.started).toEqual([]); // at 14.99 s: not expired yet (attempts at 0, 2, ..., 14 s)
      await advance(2 * RETRY);
      // First attempt after the observation (at 0) plus 15 s: the one at 16 s.
      expect(b.started).toEqual([16_000]);
      expect(lock.record).toEqual({
        holderIdentity: 'b',
        leaseDurationSeconds: 15,
        acquireTime: T0 + 16_000,
        renewTime: T0 + 18_000, // renewed once since, at 18 s
        leaderTransitions: 4,
      });
      expect(b.leaders).toEqual(['crashed', 'b']);
    });

    test("expiry is measured on the candidate's clock, from when it observed the record, not from renewTime", async () => {
      heldBy('skewed', T0 - 3_600_000); // renewTime an hour ago, by another machine's clock
      const b = candidate('b');
      b.elector.start();
      await advance(LEASE - 10);
      expect(b.started).toEqual([]);
      await advance(2 * RETRY);
      expect(b.started).toEqual([16_000]);
    });

    test('a renewal by the holder restarts the wait', async () => {
      heldBy('other');
      const b = candidate('b');
      b.elector.start();
      await advance(9_000);
      heldBy('other'); // renewed at 9 s; b sees the change at its attempt at 10 s, so it expires at 25 s
      await advance(LEASE - 10);
      expect(b.started).toEqual([]);
      await advance(2 * RETRY);
      expect(b.started).toEqual([26_000]);
    });

    test('a released Lease (no holder): taken at the next attempt, without waiting', async () => {
      lock.write({ holderIdentity: '', leaseDurationSeconds: 1, acquireTime: T0, renewTime: T0, leaderTransitions: 5 });
      const b = candidate('b');
      b.elector.start();
      await settle();
      expect(b.started).toEqual([0]);
      expect(lock.record).toMatchObject({ holderIdentity: 'b', leaseDurationSeconds: 15, leaderTransitions: 6 });
    });

    test('a Lease that names this candidate (its pod restarted under the same name) is taken back at once', async () => {
      heldBy('a');
      const a = candidate('a');
      a.elector.start();
      await settle();
      expect(a.started).toEqual([0]);
      expect(lock.record).toMatchObject({ holderIdentity: 'a', acquireTime: T0, leaderTransitions: 3 });
    });

    test('between attempts a candidate waits the retry period plus up to 1.2 times it in jitter', async () => {
      heldBy('other');
      const b = candidate('b', { random: () => 0.5 });
      b.elector.start();
      await settle();
      expect(clock.msUntilNextTimer()).toBe(RETRY * (1 + 0.5 * 1.2));
    });

    test('API errors: the candidate keeps trying every retry period, and acquires once the server answers', async () => {
      lock.failWith = apiError(503, 'unavailable');
      const b = candidate('b');
      b.elector.start();
      await advance(3 * RETRY);
      expect(b.started).toEqual([]);
      expect(lock.calls).toEqual(['get', 'get', 'get', 'get']);
      lock.failWith = undefined;
      await advance(RETRY);
      expect(b.started).toEqual([8_000]);
    });
  });

  describe('optimistic concurrency (409)', () => {
    test('two candidates race for an absent Lease: one creates it, the other gets 409 and follows', async () => {
      const a = candidate('a');
      const b = candidate('b');
      a.elector.start();
      b.elector.start();
      await settle();

      expect(lock.calls).toEqual(['get', 'get', 'create', 'create']);
      expect(a.started).toEqual([0]);
      expect(b.started).toEqual([]);
      await advance(60_000);
      expect(b.started).toEqual([]);
      expect(b.elector.leader).toBe('a');
      expect(a.elector.isLeader).toBe(true);
    });

    test('two candidates race for an expired Lease: both replace the version they read, the second gets 409', async () => {
      lock.write({ holderIdentity: '', leaseDurationSeconds: 1, acquireTime: T0, renewTime: T0, leaderTransitions: 0 });
      const a = candidate('a');
      const b = candidate('b');
      a.elector.start();
      b.elector.start();
      await settle();

      expect(lock.calls).toEqual(['get', 'get', 'update 1', 'update 1']);
      expect(a.started).toEqual([0]);
      expect(b.started).toEqual([]);
      expect(lock.record?.holderIdentity).toBe('a');
      await advance(60_000);
      expect(b.started).toEqual([]);
      expect(b.elector.leader).toBe('a');
    });

    test('a leader whose Lease someone touched (409 on its fast path) reads it again and renews the new version', async () => {
      const a = candidate('a');
      a.elector.start();
      await settle();
      lock.write({ ...lock.record!, renewTime: T0 + 1 }); // e.g. kubectl annotate: same holder, new resourceVersion
      lock.calls.length = 0;

      await advance(RETRY);
      expect(lock.calls).toEqual(['update 1', 'get', 'update 2']);
      expect(a.elector.isLeader).toBe(true);
      expect(a.lost).toEqual([]);
      expect(lock.record).toMatchObject({ holderIdentity: 'a', renewTime: T0 + RETRY, acquireTime: T0 });
    });
  });

  describe('renewing', () => {
    test('every retry period, replacing the version it wrote last, keeping acquireTime', async () => {
      const a = candidate('a');
      a.elector.start();
      await settle();
      lock.calls.length = 0;

      await advance(3 * RETRY);
      expect(lock.calls).toEqual(['update 1', 'update 2', 'update 3']);
      expect(lock.record).toEqual({
        holderIdentity: 'a',
        leaseDurationSeconds: 15,
        acquireTime: T0,
        renewTime: T0 + 3 * RETRY,
        leaderTransitions: 0,
      });
      expect(a.started).toEqual([0]);
      expect(a.lost).toEqual([]);
    });

    test('failures shorter than the renew deadline: it keeps leading', async () => {
      const a = candidate('a');
      a.elector.start();
      await advance(RETRY - 10);
      lock.failWith = apiError(500);
      await advance(RENEW - RETRY); // the round that started at 2 s fails until 9.99 s
      lock.failWith = undefined;
      await advance(RETRY);
      expect(a.lost).toEqual([]);
      expect(a.elector.isLeader).toBe(true);
      expect(lock.record?.renewTime).toBe(T0 + 10_000);
    });

    test('steps down when it cannot renew within the renew deadline, and touches the Lease no more', async () => {
      const a = candidate('a');
      a.elector.start();
      await advance(RETRY - 10);
      lock.failWith = apiError(500, 'etcdserver: request timed out');
      // The round starts at 2 s; it retries every retry period; the deadline is at 2 + 10 s.
      await advance(RENEW);
      expect(a.lost).toEqual([]);
      await advance(10);
      expect(a.lost).toEqual([
        { at: RETRY + RENEW, reason: 'could not renew it within the renew deadline (10000 ms)' },
      ]);
      expect(a.elector.isLeader).toBe(false);
      expect(a.elector.state).toBe('lost');
      // It stepped down before any other candidate could see the Lease expire (last renewal at 0, + 15 s).
      expect(RETRY + RENEW).toBeLessThan(LEASE);

      lock.failWith = undefined;
      const calls = lock.calls.length;
      await advance(60_000);
      expect(lock.calls.length).toBe(calls);
      expect(a.started).toEqual([0]);
      expect(a.lost).toHaveLength(1);
    });

    test('a renewal that hangs: steps down at the deadline, without waiting for the answer', async () => {
      const a = candidate('a');
      a.elector.start();
      await advance(RETRY - 10);
      lock.hang = true;
      await advance(RENEW + 10);
      expect(a.lost).toEqual([
        { at: RETRY + RENEW, reason: 'could not renew it within the renew deadline (10000 ms)' },
      ]);
    });

    test('steps down at once when it reads the Lease held by another (taken over)', async () => {
      const a = candidate('a');
      a.elector.start();
      await advance(RETRY + 500);
      heldBy('intruder');

      await advance(RETRY - 500); // the next renewal, at 4 s: 409 on the fast path, then it reads the intruder
      expect(a.lost).toEqual([{ at: 2 * RETRY, reason: 'it is held by intruder' }]);
      expect(a.leaders).toEqual(['a', 'intruder']);
      expect(lock.record?.holderIdentity).toBe('intruder');
      await a.elector.stop();
      expect(lock.record?.holderIdentity).toBe('intruder'); // not its to release
    });

    test('a deleted Lease is created again by its leader, which keeps leading', async () => {
      const a = candidate('a');
      a.elector.start();
      await settle();
      lock.delete();
      await advance(RETRY);
      expect(a.lost).toEqual([]);
      expect(lock.record).toMatchObject({ holderIdentity: 'a' });
    });
  });

  describe('stopping', () => {
    test('the leader releases the Lease, and the next candidate takes it at its next attempt', async () => {
      const a = candidate('a');
      a.elector.start();
      await settle();
      const b = candidate('b');
      b.elector.start();
      await advance(5_000);
      expect(b.started).toEqual([]);

      await a.elector.stop();
      expect(lock.record).toEqual({
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: T0 + 5_000,
        renewTime: T0 + 5_000,
        leaderTransitions: 0,
      });
      expect(a.lost).toEqual([]); // a stop is not a loss
      expect(a.elector.state).toBe('stopped');

      await advance(RETRY);
      expect(b.started).toEqual([6_000]); // its attempt after the release, not 15 s later
      expect(lock.record).toMatchObject({ holderIdentity: 'b', leaderTransitions: 1 });
    });

    test('a candidate that does not lead stops without writing', async () => {
      heldBy('other');
      const b = candidate('b');
      b.elector.start();
      await advance(RETRY);
      const calls = lock.calls.length;
      await b.elector.stop();
      await advance(60_000);
      expect(lock.calls.length).toBe(calls);
      expect(lock.record?.holderIdentity).toBe('other');
    });

    test('an attempt in flight that acquires is released, and never reported as leading', async () => {
      lock.write({ holderIdentity: '', leaseDurationSeconds: 1, acquireTime: T0, renewTime: T0, leaderTransitions: 0 });
      const b = candidate('b');
      b.elector.start(); // its get is in flight
      await b.elector.stop();
      expect(b.started).toEqual([]);
      expect(lock.calls).toEqual(['get', 'update 1', 'update 2']);
      expect(lock.record).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    });

    test('a release that fails is logged; the Lease then expires by itself', async () => {
      const warnings: string[] = [];
      const a = candidate('a', { logger: { ...quiet, warn: (message: string) => warnings.push(message) } });
      a.elector.start();
      await settle();
      lock.failWith = apiError(503, 'unavailable');
      await a.elector.stop();
      expect(lock.record?.holderIdentity).toBe('a');
      expect(warnings).toEqual([
        expect.stringContaining('could not release test/lease: unavailable; it expires by itself'),
      ]);
    });
  });

  test('check(): unhealthy when the leader has not renewed for longer than the lease duration plus the tolerance', async () => {
    // A clock whose time jumps while its timers do not run (an event loop stuck, a process paused).
    let jump = 0;
    const stuck: KubeEventsClock = {
      now: () => clock.now() + jump,
      setTimer: clock.setTimer.bind(clock),
      clearTimer: clock.clearTimer.bind(clock),
      sleep: clock.sleep.bind(clock),
    };
    const a = candidate('a', { clock: stuck });
    a.elector.start();
    await settle();
    expect(a.elector.check(20_000)).toBeUndefined();
    jump = LEASE + 20_000;
    expect(a.elector.check(20_000)).toBeUndefined();
    jump += 1;
    expect(a.elector.check(20_000)).toBe('lease not renewed for 35001 ms');
    const b = candidate('b', { clock: stuck });
    b.elector.start();
    await settle();
    expect(b.elector.check(20_000)).toBeUndefined(); // a follower is always healthy
  });

  test('check(): a candidate whose attempts never settle (a Lease read that hangs) fails the liveness check', async () => {
    lock.hang = true;
    const a = candidate('a');
    a.elector.start();
    await advance(LEASE + 20_000);
    expect(a.elector.state).toBe('candidate');
    expect(a.elector.check(20_000)).toBeUndefined();
    await advance(1);
    expect(a.elector.check(20_000)).toBe('no attempt on the lease has completed for 35001 ms');
    // Stopping waits for the attempt in flight within the renew deadline, then gives up on it.
    const stopping = a.elector.stop();
    await advance(RENEW);
    await stopping;
    expect(a.elector.check(20_000)).toBeUndefined();
  });

  test("client-go's timing rules: lease > renew deadline > 1.2 x retry period, lease in whole seconds", () => {
    expect(
      leaderElectionTimingProblem({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }),
    ).toBeUndefined();
    expect(
      leaderElectionTimingProblem({ leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 }),
    ).toBeUndefined();
    expect(
      leaderElectionTimingProblem({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }),
    ).toMatch(/lease duration .* must be greater than the renew deadline/);
    expect(
      leaderElectionTimingProblem({ leaseDurationMs: 15_000, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }),
    ).toMatch(/renew deadline .* must be greater than 1.2 x the retry period/);
    expect(leaderElectionTimingProblem({ leaseDurationMs: 2_500, renewDeadlineMs: 1_000, retryPeriodMs: 500 })).toMatch(
      /whole number of seconds/,
    );
    expect(() => candidate('a', { renewDeadlineMs: LEASE })).toThrow(RangeError);
  });
});
