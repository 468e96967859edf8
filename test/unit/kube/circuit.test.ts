import { describe, expect, it } from '@jest/globals';
import { ClusterCircuit, ClusterUnavailableError } from '../../../shared/kube/circuit.js';

describe('ClusterCircuit', () => {
  const at = (t: { now: number }) => () => t.now;

  it('lets every request through while the cluster answers', () => {
    const c = new ClusterCircuit('a');
    const tickets = [c.admit(), c.admit(), c.admit()];
    for (const t of tickets) t.settle(true);
    expect(c.isOpen).toBe(false);
    expect(() => c.admit()).not.toThrow();
  });

  it('opens on a request without an answer; then one probe at a time, the others refused', () => {
    const t = { now: 1_000 };
    const c = new ClusterCircuit('a', at(t));
    c.admit().settle(false);
    expect(c.isOpen).toBe(true);
    t.now = 4_000;
    const probe = c.admit();
    expect(() => c.admit()).toThrow(ClusterUnavailableError);
    expect(() => c.admit()).toThrow(/cluster a has not answered for 3000 ms/);
    probe.settle(false); // the probe got no answer either: still open, the next request probes
    expect(c.isOpen).toBe(true);
    const next = c.admit();
    expect(() => c.admit()).toThrow(ClusterUnavailableError);
    next.settle(true);
    expect(c.isOpen).toBe(false);
    expect(() => [c.admit(), c.admit()]).not.toThrow();
  });

  it('closes when any in-flight request is answered, and a ticket settles once', () => {
    const c = new ClusterCircuit('a');
    const slow = c.admit();
    const failed = c.admit();
    failed.settle(false);
    expect(c.isOpen).toBe(true);
    slow.settle(true); // sent before it opened, answered: the cluster answers again
    expect(c.isOpen).toBe(false);
    failed.settle(false); // settled already: no effect
    expect(c.isOpen).toBe(false);
  });

  it('a request stopped before it was sent tells nothing: the state stays, a probe slot is freed', () => {
    const c = new ClusterCircuit('a');
    c.admit().settle(undefined);
    expect(c.isOpen).toBe(false);
    c.admit().settle(false);
    const probe = c.admit();
    probe.settle(undefined); // e.g. the lease fence stopped it: still open, the next request probes
    expect(c.isOpen).toBe(true);
    expect(() => c.admit()).not.toThrow();
  });

  it('refusals are retryable ReconcileErrors with their own code', () => {
    const c = new ClusterCircuit('a');
    c.admit().settle(false);
    c.admit();
    let err: unknown;
    try {
      c.admit();
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'ClusterUnavailable', retryable: true });
  });
});
