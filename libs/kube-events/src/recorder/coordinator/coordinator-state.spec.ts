import { PublishApiError, PublishCredentialError } from '../../errors.js';
import type { Series } from '../series/index.js';
import { CoordinatorState } from './coordinator-state.js';

const unreachable = new PublishApiError('connect ECONNREFUSED 127.0.0.1:6443', undefined, undefined);
const noCredentials = new PublishCredentialError('exec plugin failed', {
  command: 'aws',
  exitCode: 1,
  timedOut: false,
  durationMs: 40,
});
const series = (name: string) => ({ name }) as unknown as Series;

describe('the write coordinator’s mode and connection', () => {
  test('is healthy until every connection carries a write and one more waits, then serves the waiting in order', () => {
    const state = new CoordinatorState(2);
    state.writeStarted(0);
    expect(state.mayTakeConnection()).toBe(true);
    state.writeStarted(0);
    expect(state.mayTakeConnection()).toBe(false);
    const [a, b] = [series('a'), series('b')];
    state.waitForConnection(a, 1);
    state.waitForConnection(b, 2);
    expect(state.isWaiting(b)).toBe(true);
    expect(state.nextWaiting()).toBeUndefined();

    state.writeEnded(5);
    expect(state.nextWaiting()).toEqual({ series: a, mark: 1 });
    expect(state.isWaiting(a)).toBe(false);
    state.writeStarted(5);
    expect(state.nextWaiting()).toBeUndefined();
    state.writeEnded(6);
    expect(state.nextWaiting()).toEqual({ series: b, mark: 2 });
    expect(state.isWaiting(b)).toBe(false);
    expect(state.mode).toEqual({ kind: 'running' });
    expect(state.connection).toEqual({ kind: 'up' });
  });

  test('refuses while the server is unreachable, grants one probe per interval with nothing in flight, and is healthy once answered', () => {
    const state = new CoordinatorState(8);
    state.unreachable(unreachable, 0);
    expect(state.connection).toMatchObject({ kind: 'unreachable', why: unreachable, lastTriedAt: 0 });
    expect(state.down).toMatchObject({ kind: 'unreachable', why: unreachable });
    expect(state.tryProbe(1_000)).toBe(true);
    // The probe counts as an attempt: the publishes right behind it do not probe too.
    expect(state.tryProbe(1_050)).toBe(false);
    expect(state.tryProbe(1_100)).toBe(true);
    state.writeStarted(1_100);
    expect(state.tryProbe(5_000)).toBe(false);

    expect(state.answered()).toBe(true);
    expect(state.connection).toEqual({ kind: 'up' });
    expect(state.down).toBeUndefined();
    expect(state.answered()).toBe(false);
  });

  test('holds every write through the credentials’ backoff, which doubles while they keep failing', () => {
    const state = new CoordinatorState(8);
    state.credentialsFailed(noCredentials, 0);
    const first = state.heldUntil(0)!;
    expect(first).toBeGreaterThan(0);
    // A write sent before the backoff began shared the run that failed: no second failure.
    state.credentialsFailed(noCredentials, 10);
    expect(state.heldUntil(10)).toBe(first);
    expect(state.tryProbe(first - 1)).toBe(false);

    state.credentialsFailed(noCredentials, first);
    expect(state.heldUntil(first)! - first).toBe(2 * first);
    expect(state.connection).toMatchObject({ kind: 'unauthenticated', failures: 2 });
  });

  test('drains until the later deadline of two flushes, whatever the connections, and takes the waiting writes along', () => {
    const state = new CoordinatorState(1);
    state.writeStarted(0);
    const waiting = series('waiting');
    state.waitForConnection(waiting, 0);
    state.unreachable(unreachable, 0);

    state.drainUntil(500);
    expect(state.isWaiting(waiting)).toBe(false);
    state.drainUntil(300);
    expect(state.mode).toEqual({ kind: 'draining', until: 500 });
    expect(state.drainingUntil).toBe(500);
    expect(state.mayTakeConnection()).toBe(true);
    expect(state.tryProbe(10_000)).toBe(false);

    state.drained();
    expect(state.mode).toEqual({ kind: 'running' });
    expect(state.connection).toMatchObject({ kind: 'unreachable' });
  });

  test('stays closed once shut down, whatever comes after', () => {
    const state = new CoordinatorState(8);
    state.close();
    state.answered();
    state.drainUntil(100);
    expect(state.mode).toEqual({ kind: 'closed' });
    expect(state.drainingUntil).toBeUndefined();
    expect(state.closed).toBe(true);
  });
});
