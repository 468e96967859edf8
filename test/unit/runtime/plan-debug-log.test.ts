// The debug log of a plan shows what the plan does (action types, object refs, reasons, preconditions), never
// the objects it writes: the ConfigMap mirror's plans carry ConfigMap data, a pod template carries env values.
// reconcileOne runs on the real in-memory queue with a controller whose plan writes a ConfigMap with data; a
// preflight refusal ends the run before any write, so no cluster is needed.
import { describe, expect, it } from '@jest/globals';
import type { Controller } from '../../../shared/controllers/controller.js';
import type { Action } from '../../../shared/kube/actions.js';
import { ReconcileError } from '../../../shared/kube/errors.js';
import type { KubeRest } from '../../../shared/kube/rest.js';
import { ClusterRegistry } from '../../../shared/kube/registry.js';
import type { ClusterView } from '../../../shared/kube/view.js';
import { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import { Logger } from '../../../shared/runtime/logger.js';
import { summarizePlan } from '../../../shared/runtime/plan-summary.js';
import { reconcileOne, type ReconcileDeps } from '../../../shared/runtime/reconcile-one.js';

const KEY = { cluster: 'c', kind: 'ConfigMap', namespace: 'src', name: 'app-config' };
const SECRET = 'hunter2-mirror-data';

const mirror = (namespace: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'app-config', namespace, resourceVersion: '12' },
  data: { 'db.password': SECRET },
  binaryData: { blob: Buffer.from(SECRET).toString('base64') },
});

const ACTIONS: Action[] = [
  { type: 'create', object: mirror('team-a'), reason: 'MirrorCreated' },
  { type: 'update', object: mirror('team-b'), reason: 'MirrorUpdated' },
  {
    type: 'delete',
    target: { kind: 'ConfigMap', namespace: 'team-c', name: 'app-config' },
    uid: 'u-3',
    reason: 'Gone',
  },
  {
    type: 'patch',
    target: { kind: 'Pod', namespace: 'src', name: 'p' },
    patch: { metadata: { labels: { secret: SECRET }, uid: 'u-4' } },
    reason: 'Relabel',
  },
  {
    type: 'apply',
    target: { kind: 'ConfigMap', namespace: 'team-d', name: 'app-config' },
    configuration: mirror('team-d'),
    fieldManager: 'mirror',
    force: true,
    reason: 'MirrorApplied',
  },
  { type: 'updateStatus', object: { ...mirror('src'), kind: 'ConfigMap' } },
];

describe('the debug log of a plan', () => {
  it('shows action summaries and object refs, not object bodies or ConfigMap data', async () => {
    const lines: string[] = [];
    const queue = new MemoryQueue({ leaseMs: 10_000 });
    const controller: Controller = {
      kind: 'ConfigMap',
      observe: async () => undefined,
      plan: () => ({ actions: ACTIONS, requeueAfter: 1_000 }),
      preflight: async () => {
        throw new ReconcileError('GuardRefused', 'stop before writing');
      },
    };
    const deps: ReconcileDeps = {
      registry: new ClusterRegistry(
        [
          {
            name: 'c',
            owns: ['ConfigMap'],
            limits: { qps: 100, burst: 100 },
            connection: { type: 'kubeconfig', path: '/nonexistent' },
          },
        ],
        () => undefined,
      ),
      clients: () => ({ rest: {} as KubeRest, view: {} as ClusterView }),
      controllers: new Map([['ConfigMap', controller]]),
      queue,
      logger: new Logger('test', 'debug', (l) => lines.push(l)),
      now: () => new Date(),
      leaseMs: 10_000,
    };
    await queue.add(KEY);
    const lease = await queue.get(0);
    if (!lease) throw new Error('no key handed out');
    await reconcileOne(deps, lease);
    for (const line of lines) expect(line).not.toContain(SECRET);
    for (const line of lines) expect(line).not.toContain(Buffer.from(SECRET).toString('base64'));
    const plan = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.message === 'Plan');
    expect(plan?.plan).toEqual(summarizePlan({ actions: ACTIONS, requeueAfter: 1_000 }));
  });

  it('summarizes each action by type, ref, reason and precondition', () => {
    expect(summarizePlan({ actions: ACTIONS, requeueAfter: 1_000 })).toEqual({
      requeueAfter: 1_000,
      actions: [
        { type: 'create', ref: 'ConfigMap team-a/app-config', reason: 'MirrorCreated' },
        { type: 'update', ref: 'ConfigMap team-b/app-config', reason: 'MirrorUpdated', resourceVersion: '12' },
        { type: 'delete', ref: 'ConfigMap team-c/app-config', reason: 'Gone', uid: 'u-3' },
        { type: 'patch', ref: 'Pod src/p', reason: 'Relabel', fields: ['metadata.labels', 'metadata.uid'] },
        {
          type: 'apply',
          ref: 'ConfigMap team-d/app-config',
          reason: 'MirrorApplied',
          fields: [
            'apiVersion',
            'kind',
            'metadata.name',
            'metadata.namespace',
            'metadata.resourceVersion',
            'data.db.password',
            'binaryData.blob',
          ],
          fieldManager: 'mirror',
          force: true,
        },
        { type: 'updateStatus', ref: 'ConfigMap src/app-config', resourceVersion: '12' },
      ],
    });
  });

  it('lists at most 50 actions and counts the rest', () => {
    const many = Array.from({ length: 60 }, (_, i): Action => ({
      type: 'delete',
      target: { kind: 'Pod', namespace: 'ns', name: `p-${i}` },
      uid: `u-${i}`,
      reason: 'SuccessfulDelete',
    }));
    const summary = summarizePlan({ actions: many });
    expect(summary.actions).toHaveLength(50);
    expect(summary.more).toBe(10);
  });
});
