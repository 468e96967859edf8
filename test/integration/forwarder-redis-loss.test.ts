// The long-running forwarder process (functions/forwarder.ts main, FLEETQ_DRIVER=redis) resyncs when the
// queue's Redis loses its data, like `fleetq run` does: a key enqueued before a FLUSHALL is enqueued again within
// the loss check, with the periodic resync off and no new event. And it does not wait for the check when an
// event comes first: the enqueue finds the loss marker gone and the resync starts then. A real redis-server of
// the test's own, the sandbox's fleetq-1.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { MIRROR_TO_ANNOTATION } from '../../shared/controllers/configmap-mirror/watch-keys.js';
import { keyString } from '../../shared/kube/key.js';
import { connectRedis } from '../../shared/queue/redis/redis-connection.js';
import { redisKeyPrefix, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import { waitFor } from '../../infra/sandbox/process.js';
import '../helpers/long-timeout.js';
import { writeRegistry } from '../helpers/pipeline/fleet.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import { startOwnRedis, type OwnRedis } from '../helpers/queue/redis.js';
import { sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';
const CHECK_MS = 500;
const BOUND_MS = 10_000;

describe('forwarder process: resync on Redis data loss', () => {
  let own: OwnRedis;
  beforeAll(async () => {
    own = await startOwnRedis();
  });
  afterAll(() => own.stop());

  const scenario = async (checkMs: number, eventAfterFlush: boolean): Promise<void> => {
    const c = await sandboxCluster(CLUSTER);
    const ns = await testNamespace(c.kc);
    const queue = `test-${randomUUID().slice(0, 8)}`;
    const redis = connectRedis(own.url, {}, { maxRetriesPerRequest: 1 });
    const core = c.kc.makeApiClient(CoreV1Api);
    const mirrored = (name: string) => ({
      metadata: { name, annotations: { [MIRROR_TO_ANNOTATION]: 'nowhere' } },
      data: {},
    });
    let fwd: Proc | undefined;
    try {
      fwd = spawnTsx(
        'functions/forwarder.ts',
        {
          FLEETQ_REGISTRY: writeRegistry([{ name: CLUSTER, kubeconfig: c.state.kubeconfig, owns: ['ConfigMap'] }]),
          FLEETQ_DRIVER: 'redis',
          FLEETQ_QUEUE: queue,
          REDIS_URL: own.url,
          FLEETQ_CHECKPOINTS: 'memory',
          FLEETQ_EVENT_LOG: 'none',
          FLEETQ_RESYNC_MS: '0',
          FLEETQ_REDIS_LOSS_CHECK_MS: String(checkMs),
          LOG_LEVEL: 'info',
        },
        'forwarder',
      );
      await fwd.waitForLine(/"Forwarder running"/, 120_000);
      await core.createNamespacedConfigMap({ namespace: ns.name, body: mirrored('cm') });
      const id = keyString({ cluster: CLUSTER, kind: 'ConfigMap', namespace: ns.name, name: 'cm' });
      const pending = redisKeys(redisKeyPrefix(queue)).pending;
      const isPending = async (): Promise<boolean> => (await redis.hexists(pending, id)) === 1;
      await waitFor(isPending, 30_000, 100, 'the key enqueued by the forwarder');

      await redis.flushall();
      const flushedAt = Date.now();
      expect(await isPending()).toBe(false);
      // Another object's event: its enqueue is the first write after the loss.
      if (eventAfterFlush) await core.createNamespacedConfigMap({ namespace: ns.name, body: mirrored('cm-2') });
      const back = await waitFor(isPending, BOUND_MS, 50, 'the key enqueued again').then(
        () => Date.now() - flushedAt,
        () => undefined,
      );
      console.log(
        `forwarder process (check every ${checkMs} ms${eventAfterFlush ? ', an event after the flush' : ''}): ` +
          `FLUSHALL → key enqueued again in ${back ?? `more than ${BOUND_MS}`} ms`,
      );
      expect(back).toBeDefined();
      expect(fwd.lines.some((l) => l.includes('"Redis data loss detected; resyncing"'))).toBe(true);
      expect(await fwd.stop('SIGTERM')).toBe(0);
    } finally {
      await fwd?.stop('SIGKILL');
      redis.disconnect();
      await ns.remove();
    }
  };

  it(`a key enqueued before a FLUSHALL is enqueued again within ${BOUND_MS / 1000} s, with no event and no periodic resync`, () =>
    scenario(CHECK_MS, false));

  // The periodic check is an hour away: only the enqueue of the event after the flush can have noticed the loss.
  it('an enqueue after the loss starts the resync without waiting for the periodic check', () =>
    scenario(3_600_000, true));
});
