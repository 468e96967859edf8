// The recorder's background writes run outside the async context of the reconcile that recorded first (the
// cache's write tracker follows AsyncLocalStorage: an Event write must not count as a write of that key).
// The client here only notes the context each request runs in; the writes themselves are covered against a
// real apiserver in test/integration/events.test.ts.
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from '@jest/globals';
import { EventRecorders } from '../../../../shared/kube/events/recorders.js';
import type { ResolvedEvent } from '../../../../shared/kube/events/types.js';
import type { KubeRest } from '../../../../shared/kube/rest.js';

const reconcile = new AsyncLocalStorage<string>();

function noting(seen: Array<string | undefined>): KubeRest {
  const client = {
    request: async (_method: string, _path: string, o: { body?: unknown }) => {
      seen.push(reconcile.getStore());
      return {
        ...(o.body as object),
        metadata: { ...(o.body as { metadata: object }).metadata, resourceVersion: '1' },
      };
    },
  };
  return client as unknown as KubeRest;
}

const event = (message: string): ResolvedEvent => ({
  regarding: { kind: 'ReplicaSet', apiVersion: 'apps/v1', namespace: 'ns', name: 'web', uid: 'u' },
  source: 'replicaset-controller',
  type: 'Normal',
  reason: 'SuccessfulCreate',
  message,
});

describe('EventRecorder context', () => {
  it('writes in the context the recorder set was made in, whichever reconcile recorded', async () => {
    const seen: Array<string | undefined> = [];
    const recorders = new EventRecorders();
    await reconcile.run('key-a', async () => {
      const r = recorders.for('c', noting(seen));
      r.record(event('one'));
      r.record(event('two'));
    });
    await reconcile.run('key-b', async () => recorders.for('c', noting(seen)).record(event('three')));
    expect(await recorders.flush(5_000)).toBe(true);
    expect(seen).toEqual([undefined, undefined, undefined]);
  });
});
