// A write built from a trimmed copy leaves what trimming dropped in the cluster (real kube-apiserver, fleetq-1).
// The forwarder and the cache drop kubectl's last-applied-configuration and oversized annotations before they
// hold an object; a planner's status write or update PUTs the whole observed object back, and a PUT replaces
// metadata.annotations (the status subresource resets only spec and labels). The writer puts the dropped values
// back from a live read, so a tenant's annotations and `kubectl apply`'s three-way merge survive fleetq's writes.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { cacheEntry } from '../../shared/cache/cache-entry.js';
import { trimForForwarder } from '../../shared/forwarder/object-trim.js';
import type { KubeObject } from '../../shared/forwarder/resources.js';
import type { Action } from '../../shared/kube/actions.js';
import { droppedAnnotationsOf } from '../../shared/kube/meta/dropped-annotations.js';
import type { ApiObject } from '../../shared/kube/meta/object.js';
import { KubeRest } from '../../shared/kube/rest.js';
import { TokenBucket } from '../../shared/kube/token-bucket.js';
import { applyActions, type Fence } from '../../shared/kube/writer.js';
import '../helpers/long-timeout.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const held: Fence = { held: () => true, confirm: async () => true };

type Deployment = ApiObject & { spec: Record<string, unknown>; status?: Record<string, unknown> };

/** The annotations, the 20 KiB one by its length (a failure prints a short diff). */
const summary = (d: Deployment): Record<string, string | number> =>
  Object.fromEntries(
    Object.entries(d.metadata?.annotations ?? {}).map(([k, v]) => [k, k === 'team.example/notes' ? v.length : v]),
  );

describe('writes of trimmed objects (real apiserver)', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let rest: KubeRest;

  beforeEach(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    rest = new KubeRest(CLUSTER, c.kc, new TokenBucket(100, 100));
  });
  afterEach(async () => ns.remove());

  const path = (name: string) => `/apis/apps/v1/namespaces/${ns.name}/deployments/${name}`;
  const get = (name: string) => rest.request<Deployment>('GET', path(name));

  /** A Deployment with a last-applied annotation, a 20 KiB tenant annotation and a small one, as the cache holds it. */
  async function trimmedDeployment(): Promise<{ name: string; cached: Deployment; big: string }> {
    const name = `d-${randomUUID().slice(0, 8)}`;
    const big = 'x'.repeat(20 * 1024);
    await rest.request('POST', `/apis/apps/v1/namespaces/${ns.name}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name,
          annotations: { [LAST_APPLIED]: '{"kind":"Deployment"}', 'team.example/notes': big, small: 's' },
        },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
        },
      },
    });
    const live = await get(name);
    const forwarded = trimForForwarder(live as KubeObject).object;
    const cached = cacheEntry('Deployment', 'apps/v1', forwarded as never).object as unknown as Deployment;
    return { name, cached, big };
  }

  it('trimming records what it dropped, and the cached copy lacks it', async () => {
    const { cached } = await trimmedDeployment();
    expect(droppedAnnotationsOf(cached)).toEqual([LAST_APPLIED, 'team.example/notes']);
    expect(Object.keys(cached.metadata?.annotations ?? {})).toEqual(['small']);
  });

  it('a status write of the trimmed copy keeps the dropped annotations in the cluster', async () => {
    const { name, cached, big } = await trimmedDeployment();
    const object = { ...cached, status: { ...(cached.status ?? {}), observedGeneration: 1 } };
    const action: Action = { type: 'updateStatus', object };
    await applyActions(rest, [action], held);
    const after = await get(name);
    expect(after.status?.observedGeneration).toBe(1);
    expect(summary(after)).toEqual({
      [LAST_APPLIED]: '{"kind":"Deployment"}',
      'team.example/notes': big.length,
      small: 's',
    });
    expect(JSON.stringify(after)).not.toContain('fleetqDroppedAnnotations');
  });

  it('an update of the trimmed copy keeps them too, and a key the planner set is written as it set it', async () => {
    const { name, cached, big } = await trimmedDeployment();
    const object = {
      ...cached,
      metadata: { ...cached.metadata, annotations: { ...cached.metadata?.annotations, small: 'changed' } },
    };
    await applyActions(rest, [{ type: 'update', object, reason: 'Test' } as Action], held);
    const after = await get(name);
    expect(summary(after)).toEqual({
      [LAST_APPLIED]: '{"kind":"Deployment"}',
      'team.example/notes': big.length,
      small: 'changed',
    });
  });

  it('a trimmed copy of an older version is refused by the precondition (409), not merged', async () => {
    const { name, cached } = await trimmedDeployment();
    await rest.request('PATCH', path(name), {
      body: { metadata: { labels: { moved: 'on' } } },
      contentType: 'application/merge-patch+json',
    });
    const object = { ...cached, status: { observedGeneration: 1 } };
    await expect(applyActions(rest, [{ type: 'updateStatus', object }], held)).rejects.toMatchObject({
      code: 409,
    });
    expect((await get(name)).metadata?.annotations?.['team.example/notes']).toBeDefined();
  });
});
