// A competing writer for the chaos suite: it disagrees with fleetq about one Deployment's status and writes its
// own opinion (status.unavailableReplicas, a new value each time) through the status subresource, without a
// precondition, every time fleetq is about to write that status. It learns that from the workers' own
// 'Plan computed' lines (an updateStatus action for the Deployment's key): the plan is logged after fleetq's
// read and before its write, so the competitor's write lands in between and fleetq's PUT, which carries the
// resourceVersion it read, is answered 409 Conflict. That is a 409 on every attempt, for as long as it runs,
// the worst case of two controllers owning one object. The cluster's qps in the registry must be low enough
// that fleetq's PUT waits for its rate limiter (e.g. 4 qps, burst 1: ~250 ms), so the competitor wins the race.
// Bounded: it stops at stop(), at `untilMs` or after `maxWrites`, whichever comes first.
import { AppsV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Pipeline } from './harness.js';

export type CompetitorWrite = {
  readonly at: number;
  readonly value: number;
  readonly ms: number;
  readonly error?: string;
};

export type Competitor = {
  readonly writes: CompetitorWrite[];
  /** Resolves when it has stopped (all its writes answered). */
  stop(): Promise<void>;
};

/** What the competitor believes: a value fleetq never computes for a converged Deployment (it computes 0). */
const BOGUS_START = 1_000;

export function competingStatusWriter(
  p: Pipeline,
  kc: KubeConfig,
  namespace: string,
  name: string,
  o: { untilMs: number; maxWrites?: number; pollMs?: number },
): Competitor {
  const apps = kc.makeApiClient(AppsV1Api);
  const writes: CompetitorWrite[] = [];
  const maxWrites = o.maxWrites ?? 500;
  const cursors = new Map<string, number>();
  let stopped = false;
  let value = BOGUS_START;

  const write = async (): Promise<void> => {
    const at = Date.now();
    value++;
    try {
      await apps.patchNamespacedDeploymentStatus({
        namespace,
        name,
        body: [{ op: 'add', path: '/status/unavailableReplicas', value }],
      });
      writes.push({ at, value, ms: Date.now() - at });
    } catch (err) {
      writes.push({ at, value, ms: Date.now() - at, error: String(err).slice(0, 200) });
    }
  };

  /** New 'Plan computed' lines of the Deployment's key with a status write, since the last look. */
  const plansToBeat = (): number => {
    let n = 0;
    for (const [proc, wp] of p.workers) {
      const from = cursors.get(proc) ?? wp.lines.length;
      const lines = wp.lines.slice(from);
      cursors.set(proc, from + lines.length);
      for (const line of lines) {
        if (!line.includes('"Plan computed"') || !line.includes(name)) continue;
        const l = JSON.parse(line) as {
          kind?: string;
          namespace?: string;
          name?: string;
          actions?: Record<string, number>;
        };
        if (
          l.kind === 'Deployment' &&
          l.namespace === namespace &&
          l.name === name &&
          (l.actions?.updateStatus ?? 0) > 0
        )
          n++;
      }
    }
    return n;
  };

  const loop = (async () => {
    plansToBeat(); // start after what was logged so far
    await write(); // the first disagreement starts the fight
    while (!stopped && Date.now() < o.untilMs && writes.length < maxWrites) {
      if (plansToBeat() > 0) await write();
      else await new Promise((r) => setTimeout(r, o.pollMs ?? 5));
    }
  })();

  return {
    writes,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
