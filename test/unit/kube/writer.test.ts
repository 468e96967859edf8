// The writer's delete: the uid precondition always, the propagation policy the action asks for (Background by
// default; the TTL-after-finished controller asks for Foreground), 404 taken as done.
import { describe, expect, it } from '@jest/globals';
import type { Action } from '../../../shared/kube/actions.js';
import { ApiError } from '../../../shared/kube/errors.js';
import type { KubeRest, RequestOptions } from '../../../shared/kube/rest.js';
import { applyActions } from '../../../shared/kube/writer.js';

const fence = { held: () => true, confirm: async () => Promise.resolve(true) };

function recordingRest(answer: (path: string) => unknown = () => ({})) {
  const sent: Array<{ method: string; path: string; body: unknown }> = [];
  const rest = {
    async request(method: string, path: string, o: RequestOptions = {}) {
      await Promise.resolve();
      if (o.sendAfter) await o.sendAfter;
      o.beforeSend?.();
      sent.push({ method, path, body: o.body });
      const out = answer(path);
      if (out instanceof Error) throw out;
      return out;
    },
  } as unknown as KubeRest;
  return { rest, sent };
}

const del = (kind: string, name: string, extra: Partial<Extract<Action, { type: 'delete' }>> = {}): Action => ({
  type: 'delete',
  target: { kind, namespace: 'ns', name },
  uid: `uid-${name}`,
  reason: 'test',
  ...extra,
});

describe('writer: delete', () => {
  it('sends the uid precondition and Background propagation by default, the asked policy otherwise', async () => {
    const { rest, sent } = recordingRest();
    const r = await applyActions(rest, [del('Pod', 'p'), del('Job', 'j', { propagationPolicy: 'Foreground' })], fence);
    expect(r.deleted).toBe(2);
    expect(sent).toEqual([
      {
        method: 'DELETE',
        path: '/api/v1/namespaces/ns/pods/p',
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          preconditions: { uid: 'uid-p' },
          propagationPolicy: 'Background',
        },
      },
      {
        method: 'DELETE',
        path: '/apis/batch/v1/namespaces/ns/jobs/j',
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          preconditions: { uid: 'uid-j' },
          propagationPolicy: 'Foreground',
        },
      },
    ]);
  });

  it('a 404 is the goal met; a 409 (the uid precondition failed) is thrown for a re-read', async () => {
    const gone = recordingRest(() => new ApiError(404, 'DELETE', '/x', 'NotFound', '{}'));
    await expect(
      applyActions(gone.rest, [del('Job', 'j', { propagationPolicy: 'Foreground' })], fence),
    ).resolves.toMatchObject({
      deleted: 1,
    });
    const recreated = recordingRest(() => new ApiError(409, 'DELETE', '/x', 'Conflict', '{}'));
    await expect(
      applyActions(recreated.rest, [del('Job', 'j', { propagationPolicy: 'Foreground' })], fence),
    ).rejects.toMatchObject({
      code: 409,
    });
  });
});

describe('writer: the fence confirmation overlaps the rate limiter', () => {
  it("a batch's requests take their tokens while the confirmation is in flight, and none is sent before it", async () => {
    const log: string[] = [];
    let answer: (ok: boolean) => void = () => undefined;
    const slowFence = {
      held: () => true,
      confirm: () => {
        log.push('confirm asked');
        return new Promise<boolean>((r) => (answer = r));
      },
    };
    const rest = {
      async request(method: string, path: string, o: RequestOptions = {}) {
        log.push(`take ${path}`); // the limiter's take, before KubeRest awaits sendAfter
        if (o.sendAfter) await o.sendAfter;
        o.beforeSend?.();
        log.push(`send ${path}`);
        return {};
      },
    } as unknown as KubeRest;
    const done = applyActions(rest, [del('Pod', 'a'), del('Pod', 'b')], slowFence);
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['confirm asked', 'take /api/v1/namespaces/ns/pods/a', 'take /api/v1/namespaces/ns/pods/b']);
    answer(true);
    await expect(done).resolves.toMatchObject({ deleted: 2 });
    expect(log.slice(3)).toEqual(['send /api/v1/namespaces/ns/pods/a', 'send /api/v1/namespaces/ns/pods/b']);
  });

  it('a refused confirmation fails the batch as LeaseLost with nothing sent', async () => {
    const sent: string[] = [];
    const refusing = { held: () => true, confirm: async () => Promise.resolve(false) };
    const rest = {
      async request(_method: string, path: string, o: RequestOptions = {}) {
        if (o.sendAfter) await o.sendAfter;
        o.beforeSend?.();
        sent.push(path);
        return {};
      },
    } as unknown as KubeRest;
    await expect(applyActions(rest, [del('Pod', 'a'), del('Pod', 'b')], refusing)).rejects.toMatchObject({
      code: 'LeaseLost',
    });
    expect(sent).toEqual([]);
  });
});
