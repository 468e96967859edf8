// A key of a cluster the worker's registry does not know waits for the registry instead of being dead-lettered
// at once (reconcile-one.ts, registry-watch.ts): the run re-reads the registry file, and retries the key with
// its backoff while the backoff's total is under the wait; a cluster added to the file meanwhile is reconciled,
// and one that stays unknown is dead-lettered after the wait, with a message that says what to do. The queue is
// the in-memory driver on a clock the test moves; the registry is a real file; the controller plans nothing.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Controller } from '../../../shared/controllers/controller.js';
import { RegistryReload } from '../../../shared/runtime/registry-reload.js';
import type { KubeRest } from '../../../shared/kube/rest.js';
import { ClusterRegistry, loadRegistry } from '../../../shared/kube/registry.js';
import type { ClusterView } from '../../../shared/kube/view.js';
import { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import { Logger } from '../../../shared/runtime/logger.js';
import { reconcileOne, type ReconcileDeps } from '../../../shared/runtime/reconcile-one.js';
import { RegistryWatch } from '../../../shared/runtime/registry-watch.js';

const dir = mkdtempSync(join(tmpdir(), 'fleetq-unknown-cluster-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const quiet = new Logger('test', 'error', () => undefined);
const entry = (name: string) => `  - name: ${name}\n    kubeconfig: /nonexistent/${name}.yaml\n`;
const KEY = { cluster: 'added', kind: 'ReplicaSet', namespace: 'ns', name: 'x' };

function setup(file: string, waitMs: number) {
  const path = join(dir, file);
  writeFileSync(path, `defaults:\n  owns: [ReplicaSet]\nclusters:\n${entry('old')}`);
  let now = 1_000_000;
  const queue = new MemoryQueue({ now: () => now });
  const observed: string[] = [];
  const controller: Controller = {
    kind: 'ReplicaSet',
    observe: async (_view, key) => void observed.push(key.cluster),
    plan: () => ({ actions: [] }),
  };
  const watch = new RegistryWatch(
    new RegistryReload(path, new ClusterRegistry(loadRegistry(path), () => undefined), quiet),
    { everyMs: 0, minGapMs: 0 },
  );
  const deps: ReconcileDeps = {
    registry: watch,
    unknownCluster: { waitMs, refresh: () => watch.refresh(), source: path },
    clients: () => ({ rest: {} as KubeRest, view: {} as ClusterView }),
    controllers: new Map([['ReplicaSet', controller]]),
    queue,
    logger: quiet,
    now: () => new Date(now),
  };
  /** Moves the clock until the key is ready, and runs it once. */
  const runOnce = async () => {
    for (let i = 0; i < 100; i++) {
      const lease = await queue.get(0);
      if (lease) return reconcileOne(deps, lease);
      now += 100;
    }
    throw new Error('the key never became ready');
  };
  const addCluster = () =>
    writeFileSync(path, `defaults:\n  owns: [ReplicaSet]\nclusters:\n${entry('old')}${entry('added')}`);
  return { queue, observed, runOnce, addCluster };
}

describe('a key of a cluster the registry does not know', () => {
  it('waits (retried, not dead-lettered) and is reconciled once the cluster is added to the registry file', async () => {
    const { queue, observed, runOnce, addCluster } = setup('added.yaml', 300_000);
    await queue.add(KEY);
    expect(await runOnce()).toBe('retried');
    expect(await runOnce()).toBe('retried');
    expect(await queue.deadLetters()).toEqual([]);
    addCluster();
    expect(await runOnce()).toBe('done');
    expect(observed).toEqual(['added']);
    expect(await queue.deadLetters()).toEqual([]);
  });

  it('is dead-lettered once its backoff passed the wait, saying what to do', async () => {
    const { queue, observed, runOnce } = setup('never.yaml', 300);
    await queue.add(KEY);
    const outcomes: string[] = [];
    for (let i = 0; i < 20 && !outcomes.includes('dead-lettered'); i++) outcomes.push(await runOnce());
    // 5 + 10 + 20 + 40 + 80 + 160 ms of backoff ≥ 300 ms: six retries, then the dead letter.
    expect(outcomes).toEqual([...Array<string>(6).fill('retried'), 'dead-lettered']);
    const [letter] = await queue.deadLetters();
    expect(letter?.reason).toMatch(
      /^UnknownCluster: cluster added is not in the registry .*never\.yaml \(waited about 0 s\)/,
    );
    expect(letter?.reason).toMatch(/add it to the registry every worker and forwarder reads/);
    expect(letter?.reason).toMatch(/fleetq dlq redrive --cluster added/);
    expect(observed).toEqual([]);
  });
});
