// One cluster's data must not crash every forwarder of a pool in turn. A tenant's Deployments each carry ~250 KiB
// of annotations (kubectl's last-applied-configuration; the apiserver allows 256 KiB of annotations an object). Three real `fleetq forwarder --pool`
// processes, each under a small heap, share two registry entries: `big` (the standard fleetq-2, where the test
// creates the big Deployments before the pool starts) and `small` (fleetq-1). Before the fix, a relist was
// collected whole (one page of 500) and parsed into memory: the holder of `big` died of heap exhaustion, the
// next took its lease and died too, and `small` went unwatched. Asserted: no process dies, every big Deployment's
// key reaches the queue (the big cluster converges), and `small` stays watched (a Deployment created there
// afterwards is enqueued).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { waitFor } from '../../infra/sandbox/process.js';
import { queuePrefixOf } from '../../shared/forwarder/forwarder-lease.js';
import { deleteAllCheckpoints } from '../../shared/queue/history/checkpoint-store.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { chaosNamespace, removeNamespace } from '../helpers/chaos/harness.js';
import { writeRegistry } from '../helpers/pipeline/fleet.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import { REDIS_URL } from '../helpers/queue/redis.js';
import { sandboxCluster } from '../helpers/sandbox/clusters.js';

/** Big Deployments and the heap of each forwarder: 400 × 250 KiB is ~100 MiB of list, parsed twice over. */
const BIG = 400;
const ANNOTATION_BYTES = 250 * 1024;
const HEAP_MIB = 160;
const LEASE_MS = 4_000;

const deployment = (name: string, annotations: Record<string, string> = {}) => ({
  metadata: { name, annotations },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
    },
  },
});

describe('chaos: one cluster of huge objects does not take the forwarder pool down', () => {
  const queue = `cascade-${randomUUID().slice(0, 8)}`;
  const prefix = queuePrefixOf(queue);
  const redis = new Redis(REDIS_URL);
  const procs: Proc[] = [];
  const clusters = new Map<'big' | 'small', { kc: KubeConfig; ns: string }>();

  beforeAll(async () => {
    const kubeconfigs: Array<{ name: string; kubeconfig: string; owns: string[] }> = [];
    for (const [name, real] of [
      ['big', 'fleetq-2'],
      ['small', 'fleetq-1'],
    ] as const) {
      const { kc, state } = await sandboxCluster(real);
      clusters.set(name, { kc, ns: await chaosNamespace(kc) });
      kubeconfigs.push({ name, kubeconfig: state.kubeconfig, owns: ['Deployment'] });
    }
    // The tenant's Deployments, eight creates at a time.
    const { kc, ns } = clusters.get('big') as { kc: KubeConfig; ns: string };
    const apps = kc.makeApiClient(AppsV1Api);
    const blob = JSON.stringify({ note: 'x'.repeat(ANNOTATION_BYTES) });
    const started = Date.now();
    for (let i = 0; i < BIG; i += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, BIG - i) }, (_, j) =>
          apps.createNamespacedDeployment({
            namespace: ns,
            body: deployment(`big-${i + j}`, { 'kubectl.kubernetes.io/last-applied-configuration': blob }),
          }),
        ),
      );
    }
    console.log(
      `forwarder cascade: ${BIG} Deployments of ~${ANNOTATION_BYTES >> 10} KiB in ${Date.now() - started} ms`,
    );
    const env = {
      FLEETQ_REGISTRY: writeRegistry(kubeconfigs),
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: queue,
      REDIS_URL,
      FLEETQ_FORWARDER_LEASE_MS: String(LEASE_MS),
      FLEETQ_RESYNC_MS: '0',
      FLEETQ_EVENT_LOG: 'none',
      FLEETQ_READS: 'live',
      LOG_LEVEL: 'info',
      NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}`,
    };
    for (let i = 0; i < 3; i++)
      procs.push(spawnTsx('functions/cli.ts', env, `forwarder-${i}`, ['forwarder', '--pool']));
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    for (const { kc, ns } of clusters.values()) await removeNamespace(kc, ns);
    await deleteQueueKeys(redis, prefix);
    await deleteAllCheckpoints(redis, `fleetq:${queue}`);
    redis.disconnect();
  });

  const dead = (): string[] =>
    procs.flatMap((p, i) =>
      p.child.exitCode !== null || p.child.signalCode !== null
        ? [`forwarder-${i} exited ${p.child.exitCode ?? p.child.signalCode}: ${p.lines.slice(-3).join(' | ')}`]
        : [],
    );
  const missing = async (cluster: string, ns: string, names: readonly string[]): Promise<string[]> => {
    const keys = names.map((n) => `${cluster}/Deployment/${ns}/${n}`);
    const present = await redis.hmget(`${prefix}pending`, ...keys);
    return keys.filter((_, i) => present[i] === null);
  };
  /** Waits for `done`, failing at once when a forwarder died. */
  const converge = async (what: string, done: () => Promise<boolean>, ms: number): Promise<void> =>
    waitFor(
      async () => {
        const gone = dead();
        if (gone.length > 0) throw new Error(`a forwarder died: ${gone.join('; ')}`);
        return done();
      },
      ms,
      250,
      what,
    );

  it('no forwarder dies; the big cluster converges and the other stays watched', async () => {
    const big = clusters.get('big') as { kc: KubeConfig; ns: string };
    const small = clusters.get('small') as { kc: KubeConfig; ns: string };
    const bigNames = Array.from({ length: BIG }, (_, i) => `big-${i}`);
    await converge(
      'every big Deployment enqueued',
      async () => (await missing('big', big.ns, bigNames)).length === 0,
      90_000,
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}; missing ${(await missing('big', big.ns, bigNames)).length} of ${BIG}`);
    });
    await small.kc
      .makeApiClient(AppsV1Api)
      .createNamespacedDeployment({ namespace: small.ns, body: deployment('after') });
    await converge(
      'the small cluster still watched',
      async () => (await missing('small', small.ns, ['after'])).length === 0,
      30_000,
    );
    // The trimmed relist said so: objects were trimmed and pages were small.
    const trimmedLogs = procs.flatMap((p) => p.lines).filter((l) => l.includes('"Listed"') && l.includes('"big"'));
    expect(trimmedLogs.length).toBeGreaterThan(0);
    expect(dead()).toEqual([]);
  });
});
