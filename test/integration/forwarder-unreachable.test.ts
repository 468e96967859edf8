// A cluster that cannot be reached (its registry entry points at a closed port) is logged and retried with
// backoff, and does not stop the forwarder of a healthy cluster next to it.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { FleetForwarder } from '../../shared/forwarder/fleet-forwarder.js';
import { Logger } from '../../shared/runtime/logger.js';
import { MIRROR_TO_ANNOTATION } from '../../shared/controllers/configmap-mirror/watch-keys.js';
import { keyString, type ReconcileKey } from '../../shared/kube/key.js';
import { ClusterRegistry, DEFAULT_LIMITS, type ClusterConfig } from '../../shared/kube/registry.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import '../helpers/long-timeout.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const HEALTHY = 'fleetq-2';
const BROKEN = 'broken-1';

describe('fleet forwarder with an unreachable cluster', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let dir: string;
  let fleet: FleetForwarder;
  const logs: Array<Record<string, unknown>> = [];
  const added: string[] = [];
  const queue = new MemoryQueue();

  beforeEach(async () => {
    c = await sandboxCluster(HEALTHY);
    ns = await testNamespace(c.kc);
    dir = await mkdtemp(join(tmpdir(), 'fleetq-unreachable-'));
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'not-a-real-token\n');
    const clusters: ClusterConfig[] = [
      {
        name: BROKEN,
        owns: ['ConfigMap', 'Deployment'],
        limits: DEFAULT_LIMITS,
        allowInsecure: true,
        connection: {
          type: 'token',
          server: `https://127.0.0.1:${await freePort()}`,
          tokenFile,
          insecureSkipTLSVerify: true,
        },
      },
      {
        name: HEALTHY,
        owns: ['ConfigMap'],
        limits: DEFAULT_LIMITS,
        connection: { type: 'kubeconfig', path: c.state.kubeconfig },
      },
    ];
    fleet = new FleetForwarder(new ClusterRegistry(clusters), {
      queue: {
        add: async (key: ReconcileKey) => {
          added.push(keyString(key));
          await queue.add(key);
        },
        addAfter: async (key: ReconcileKey, delayMs: number) => {
          added.push(keyString(key));
          await queue.addAfter(key, delayMs);
        },
        parkInvalid: (raw: string, reason: string) => queue.parkInvalid(raw, reason),
      },
      checkpoints: new MemoryCheckpointStore(),
      logger: new Logger('test', 'warn', (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
      registry: new Registry(),
      resyncMs: 0,
      backoff: { initialMs: 100, maxMs: 400 },
    });
  });

  afterEach(async () => {
    await fleet.stop();
    await queue.close();
    await rm(dir, { recursive: true, force: true });
    await ns.remove();
  });

  it('logs the unreachable cluster, keeps retrying it, and still forwards the healthy one', async () => {
    await fleet.start();
    const failures = (): Array<Record<string, unknown>> =>
      logs.filter((l) => l.cluster === BROKEN && l.level === 'error' && l.message === 'Cluster identity check failed');
    // Watching starts once the cluster's identity was read (checkpoints are bound to it): that is what fails.
    await waitFor(async () => failures().length >= 3, 30_000, 50, 'three failed identity reads of the broken cluster');
    expect(failures()[0]).toMatchObject({ unreachable: true, attempt: 1 });

    const source = keyString({ cluster: HEALTHY, kind: 'ConfigMap', namespace: ns.name, name: 'src' });
    await c.kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'src', annotations: { [MIRROR_TO_ANNOTATION]: 'elsewhere' } } },
    });
    await waitFor(async () => added.includes(source), 30_000, 50, `key ${source}`);
    expect(added.some((k) => k.startsWith(`${BROKEN}/`))).toBe(false);
    expect(logs.filter((l) => l.cluster === HEALTHY && l.level === 'error')).toEqual([]);
    expect([...fleet.forwarders.keys()].sort()).toEqual([BROKEN, HEALTHY].sort());
  });
});
