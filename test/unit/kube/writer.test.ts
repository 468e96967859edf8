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
