import { describe, expect, it } from '@jest/globals';
import type { KubeRest, RequestOptions } from '../../../shared/kube/rest.js';
import { applyActions } from '../../../shared/kube/writer.js';
import type { Action } from '../../../shared/kube/actions.js';
import { LeaseFence, safetyMarginMs } from '../../../shared/runtime/lease-fence.js';
import type { Lease } from '../../../shared/queue/work-queue.js';

const LEASE_MS = 30_000;
const lease: Lease = {
  key: { cluster: 'c', kind: 'ReplicaSet', namespace: 'ns', name: 'rs' },
  id: 'c/ReplicaSet/ns/rs',
  token: 't1',
  readyAt: 0,
  failures: 0,
  grantedAt: 1_000,
};

/** A clock under the test's control and a queue whose renew answers are scripted. */
function setup(renewals: boolean[] = []) {
  let now = 1_000;
  const renewed: number[] = [];
  const queue = {
    renew: async (): Promise<boolean> => {
      renewed.push(now);
      return renewals.shift() ?? true;
    },
  };
  const fence = new LeaseFence(queue, lease, { leaseMs: LEASE_MS, clock: () => now });
  return { fence, renewed, advance: (ms: number) => (now += ms) };
}

/** Records what would be sent; calls beforeSend where KubeRest does (after its rate limiter). */
function recordingRest(onSend: (method: string) => void = () => undefined) {
  const sent: string[] = [];
  const rest = {
    async request(method: string, path: string, o: RequestOptions = {}) {
      await Promise.resolve(); // the rate limiter's wait
      if (o.sendAfter) await o.sendAfter;
      o.beforeSend?.();
      sent.push(`${method} ${path}`);
      onSend(method);
      return {};
    },
  } as unknown as KubeRest;
  return { rest, sent };
}

const pod = (name: string): Action => ({
  type: 'create',
  reason: 'SuccessfulCreate',
  object: { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'ns', name } },
});
const status: Action = {
  type: 'updateStatus',
  object: {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { namespace: 'ns', name: 'rs', resourceVersion: '5' },
  },
};

describe('LeaseFence', () => {
  it('holds until leaseMs minus the safety margin after the grant, on the monotonic clock', () => {
    const { fence, advance } = setup();
    advance(LEASE_MS - safetyMarginMs(LEASE_MS) - 1);
    expect(fence.held()).toBe(true);
    advance(1);
    expect(fence.held()).toBe(false);
    expect(fence.lostReason).toMatch(/local lease deadline passed/);
    expect(() => fence.assertHeld()).toThrow(expect.objectContaining({ code: 'LeaseLost' }));
  });

  it('a successful renewal moves the deadline to leaseMs after the renewal was sent', async () => {
    const { fence, advance } = setup([true]);
    advance(20_000);
    expect(await fence.renew()).toBe(true);
    advance(LEASE_MS - safetyMarginMs(LEASE_MS) - 1);
    expect(fence.held()).toBe(true);
    advance(1);
    expect(fence.held()).toBe(false);
  });

  it('a refused renewal marks the lease lost at once and for good', async () => {
    const { fence, renewed } = setup([false, true]);
    expect(await fence.renew()).toBe(false);
    expect(fence.held()).toBe(false);
    expect(fence.lostReason).toMatch(/renewal refused/);
    expect(await fence.renew()).toBe(false);
    expect(renewed).toHaveLength(1); // no renewal is even tried once lost
  });
});

describe('applyActions with a lease fence', () => {
  it('a refused renewal between batches stops the writes: no further request is sent', async () => {
    const { fence } = setup([true, false]);
    const { rest, sent } = recordingRest();
    const actions = [pod('a'), pod('b'), pod('c'), pod('d'), status];
    await expect(applyActions(rest, actions, fence)).rejects.toMatchObject({ code: 'LeaseLost' });
    expect(sent).toEqual(['POST /api/v1/namespaces/ns/pods']);
  });

  it('a lease whose local deadline passed refuses to write, without asking the queue', async () => {
    const { fence, advance, renewed } = setup([true, true, true]);
    advance(LEASE_MS);
    const { rest, sent } = recordingRest();
    await expect(applyActions(rest, [pod('a'), status], fence)).rejects.toMatchObject({ code: 'LeaseLost' });
    expect(sent).toEqual([]);
    expect(renewed).toEqual([]);
  });

  it('checks before every request, not only per batch: a stall inside a batch stops the rest of it', async () => {
    const { fence, advance } = setup();
    // The first send of the 4-pod batch stalls the process past its lease (SIGSTOP, a long GC).
    let stalled = false;
    const { rest, sent } = recordingRest((method) => {
      if (method === 'POST' && sent.length === 4 && !stalled) {
        stalled = true;
        advance(LEASE_MS);
      }
    });
    const actions = [pod('a'), pod('b'), pod('c'), pod('d'), pod('e'), pod('f'), pod('g'), status];
    await expect(applyActions(rest, actions, fence)).rejects.toMatchObject({ code: 'LeaseLost' });
    // batches 1 and 2 (3 pods), then only the first pod of batch 3; nothing after the stall, no status.
    expect(sent).toHaveLength(4);
    expect(sent.every((s) => s.startsWith('POST'))).toBe(true);
  });
});
