import type { CoordinationV1Api, V1Lease } from '@kubernetes/client-node';
import { LeaseLock, leaseSpec, recordOf } from './lease-lock.js';
import { apiError } from './testing/fake-lease-lock.js';

describe('LeaseLock', () => {
  const record = {
    holderIdentity: 'pod-a',
    leaseDurationSeconds: 15,
    acquireTime: Date.parse('2026-11-30T10:00:00.123Z'),
    renewTime: Date.parse('2026-11-30T10:00:04.567Z'),
    leaderTransitions: 2,
  };

  test('writes MicroTimes with six fractional digits, as the server requires', () => {
    const spec = JSON.parse(JSON.stringify(leaseSpec(record)));
    expect(spec).toEqual({
      holderIdentity: 'pod-a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-11-30T10:00:00.123000Z',
      renewTime: '2026-11-30T10:00:04.567000Z',
      leaseTransitions: 2,
    });
  });

  test('reads a Lease, times as Date or as text, missing fields as client-go does', () => {
    expect(recordOf({ spec: { ...leaseSpec(record) } })).toEqual(record);
    expect(
      recordOf({ spec: { holderIdentity: 'x', renewTime: '2026-11-30T10:00:04.567891Z' as unknown as Date } }),
    ).toEqual({
      holderIdentity: 'x',
      leaseDurationSeconds: 0,
      acquireTime: undefined,
      renewTime: record.renewTime,
      leaderTransitions: 0,
    });
    expect(recordOf({})).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 0,
      acquireTime: undefined,
      renewTime: undefined,
      leaderTransitions: 0,
    });
  });

  test('get: undefined on 404; update: replaces with the resourceVersion given, keeping labels and annotations', async () => {
    const calls: unknown[] = [];
    const stored: V1Lease = {
      metadata: {
        name: 'op',
        namespace: 'ns',
        resourceVersion: '41',
        labels: { team: 'a' },
        annotations: { note: 'b' },
      },
      spec: leaseSpec(record),
    };
    let missing = true;
    const api = {
      readNamespacedLease: async (param: unknown) => {
        calls.push(['read', param]);
        if (missing) throw apiError(404);
        return stored;
      },
      replaceNamespacedLease: async (param: { body: V1Lease }) => {
        calls.push(['replace', JSON.parse(JSON.stringify(param))]);
        return { ...param.body, metadata: { ...param.body.metadata, resourceVersion: '42' } };
      },
    } as unknown as CoordinationV1Api;
    const lock = new LeaseLock(api, 'ns', 'op');
    expect(lock.describe()).toBe('ns/op');
    await expect(lock.get()).resolves.toBeUndefined();
    missing = false;
    await expect(lock.get()).resolves.toEqual({ record, resourceVersion: '41' });
    await expect(lock.update({ ...record, holderIdentity: 'pod-b' }, '41')).resolves.toMatchObject({
      record: { holderIdentity: 'pod-b' },
      resourceVersion: '42',
    });
    expect(calls[2]).toEqual([
      'replace',
      {
        namespace: 'ns',
        name: 'op',
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: {
            name: 'op',
            namespace: 'ns',
            resourceVersion: '41',
            labels: { team: 'a' },
            annotations: { note: 'b' },
          },
          spec: { ...JSON.parse(JSON.stringify(leaseSpec(record))), holderIdentity: 'pod-b' },
        },
      },
    ]);
  });

  test('errors other than 404 reach the caller (a 409 on update is how a lost race shows)', async () => {
    const api = {
      readNamespacedLease: async () => {
        throw apiError(403, 'forbidden');
      },
      replaceNamespacedLease: async () => {
        throw apiError(409, 'the object has been modified');
      },
    } as unknown as CoordinationV1Api;
    const lock = new LeaseLock(api, 'ns', 'op');
    await expect(lock.get()).rejects.toMatchObject({ code: 403 });
    await expect(lock.update(record, '1')).rejects.toMatchObject({ code: 409 });
  });
});
