// What a worker keeps per cluster goes once the cluster is idle (FLEETQ_CLUSTER_IDLE_MS): the map itself, the
// clients of runtime/clients.ts (held through an API budget's refill time, never with an open circuit) and the
// event recorders (never with events left to write). Time is an input; no timers.
import { describe, expect, it } from '@jest/globals';
import { IdleExpiry } from '../../../shared/kube/idle-expiry.js';
import { EventRecorders } from '../../../shared/kube/events/recorders.js';
import type { ResolvedEvent } from '../../../shared/kube/events/types.js';
import type { KubeRest } from '../../../shared/kube/rest.js';
import { ClusterRegistry, parseRegistry } from '../../../shared/kube/registry.js';
import { clientsMinIdleMs, clusterClients } from '../../../shared/runtime/clients.js';

describe('IdleExpiry', () => {
  const clock = () => {
    const c = { t: 0, now: () => c.t };
    return c;
  };

  it('forgets an entry unused for idleMs, keeps one used since', () => {
    const c = clock();
    const m = new IdleExpiry<string>({ idleMs: 1000, now: c.now, sweepEveryMs: 0 });
    m.set('a', 'A');
    m.set('b', 'B');
    c.t = 900;
    expect(m.get('a')).toBe('A');
    c.t = 1000;
    expect(m.get('x')).toBeUndefined(); // an access sweeps: b, unused for 1000 ms, goes
    expect(m.size).toBe(1);
    expect(m.get('a')).toBe('A');
    c.t = 2000;
    expect(m.sweep()).toBe(1);
    expect(m.get('a')).toBeUndefined();
  });

  it('keeps an entry for its own least idle time, and while it cannot go', () => {
    const c = clock();
    let busy = true;
    const evicted: string[] = [];
    const m = new IdleExpiry<{ min: number }>({
      idleMs: 100,
      now: c.now,
      minIdleMs: (v) => v.min,
      canEvict: () => !busy,
      onEvict: (k) => evicted.push(k),
    });
    m.set('slow', { min: 5000 });
    m.set('fast', { min: 0 });
    c.t = 1000;
    expect(m.sweep()).toBe(0); // fast is busy
    busy = false;
    expect(m.sweep()).toBe(1);
    expect(evicted).toEqual(['fast']);
    c.t = 5000;
    expect(m.sweep()).toBe(1);
    expect(evicted).toEqual(['fast', 'slow']);
  });

  it('idleMs 0 keeps everything', () => {
    const c = clock();
    const m = new IdleExpiry<number>({ idleMs: 0, now: c.now });
    m.set('a', 1);
    c.t = 1e12;
    expect(m.sweep()).toBe(0);
    expect(m.get('a')).toBe(1);
  });

  it('sweeps on access at most every sweepEveryMs', () => {
    const c = clock();
    const m = new IdleExpiry<number>({ idleMs: 100, now: c.now, sweepEveryMs: 1000 });
    m.set('a', 1);
    c.t = 500;
    m.get('b'); // no sweep yet: a stays although idle
    expect(m.size).toBe(1);
    c.t = 1000;
    m.get('b');
    expect(m.size).toBe(0);
  });
});

// A registry entry; no request is sent (the token file is read only by a request).
const registryOf = (qps: number, burst: number): ClusterRegistry =>
  new ClusterRegistry(
    parseRegistry(
      [
        'clusters:',
        '  - name: c1',
        '    server: http://127.0.0.1:1',
        '    tokenFile: /nonexistent/token',
        '    allowInsecure: true',
        `    limits: { qps: ${qps}, burst: ${burst} }`,
      ].join('\n'),
      'r.yaml',
    ),
  );

describe('clusterClients expiry', () => {
  it('holds until the budget would have refilled (burst / qps), the longer of the two buckets', () => {
    expect(clientsMinIdleMs({ qps: 20, burst: 30 })).toBe(1500);
    expect(clientsMinIdleMs({ qps: 100, burst: 200, cluster: { qps: 1, burst: 60 } })).toBe(60_000);
  });

  it('builds a cluster again once idle, not before; never without expiry', () => {
    const c = { t: 0 };
    const registry = registryOf(1, 10);
    const clients = clusterClients(registry, undefined, undefined, undefined, { idleMs: 1000, now: () => c.t });
    const first = clients('c1');
    c.t = 5000;
    expect(clients('c1')).toBe(first); // used at 5 s
    c.t = 14_000; // 9 s idle: past idleMs, not past the bucket's 10 s refill
    expect(clients('c1')).toBe(first);
    c.t = 24_001; // 10 s since
    const second = clients('c1');
    expect(second).not.toBe(first);
    const kept = clusterClients(registry);
    const k = kept('c1');
    expect(kept('c1')).toBe(k);
  });
});

describe('EventRecorders expiry', () => {
  const event: ResolvedEvent = {
    regarding: { kind: 'ReplicaSet', apiVersion: 'apps/v1', namespace: 'ns', name: 'web', uid: 'u' },
    source: 'replicaset-controller',
    type: 'Normal',
    reason: 'SuccessfulCreate',
    message: 'm',
  };
  const rest = (log: string[], name: string, hold?: Promise<void>): KubeRest =>
    ({
      request: async (_m: string, _p: string, o: { body?: unknown }) => {
        log.push(name);
        await hold;
        return { ...(o.body as object), metadata: { name: 'e', namespace: 'ns', resourceVersion: '1' } };
      },
    }) as unknown as KubeRest;

  it('forgets an idle recorder, keeps one with events left to write, and writes through the latest client', async () => {
    const c = { t: 0 };
    const log: string[] = [];
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const recorders = new EventRecorders({ idleMs: 1000, now: () => c.t });
    const r = recorders.for('c1', rest(log, 'old', hold));
    r.record(event);
    c.t = 2000;
    recorders.for('c2', rest(log, 'x')); // an access sweeps: c1 is writing, kept
    expect(recorders.size).toBe(2);
    expect(recorders.for('c1', rest(log, 'new'))).toBe(r);
    release();
    await r.flush(1000);
    r.record({ ...event, message: 'n' });
    await r.flush(1000);
    expect(log).toEqual(['old', 'new']);
    c.t = 4000;
    expect(recorders.for('c3', rest(log, 'y'))).toBeDefined();
    expect(recorders.size).toBe(1);
    expect(recorders.for('c1', rest(log, 'newer'))).not.toBe(r);
  });
});
