// Which checkpoints survive the identity check: a pure function of what was stored, the identity and the
// cluster's current resourceVersion (the store is an in-memory one).
import { describe, expect, it } from '@jest/globals';
import { IDENTITY_CHECKPOINT, bindCheckpoints, isAhead } from '../../../shared/forwarder/cluster-identity.js';
import { MemoryCheckpointStore } from '../../../shared/queue/history/checkpoint-store.js';
import { Logger } from '../../../shared/runtime/logger.js';

const quiet = new Logger('test', 'error', () => undefined);

describe('isAhead', () => {
  it.each([
    { rv: '1447', current: '233', want: true },
    { rv: '233', current: '1447', want: false },
    { rv: '233', current: '233', want: false },
    { rv: '99999999999999999999', current: '9', want: true },
    { rv: 'opaque', current: '9', want: false },
    { rv: '10', current: '', want: false },
  ])('$rv vs $current → $want', ({ rv, current, want }) => expect(isAhead(rv, current)).toBe(want));
});

describe('bindCheckpoints', () => {
  const resources = ['pods', 'replicasets'];
  async function bind(saved: Array<[string, string]>, identity: string, currentResourceVersion?: string) {
    const store = new MemoryCheckpointStore();
    await store.save('c', new Map(saved));
    const resumed = await bindCheckpoints({
      cluster: 'c',
      store,
      resources,
      saved: new Map(saved),
      identity,
      logger: quiet,
      ...(currentResourceVersion === undefined ? {} : { currentResourceVersion }),
    });
    return { resumed, stored: await store.load('c', [...resources, IDENTITY_CHECKPOINT]) };
  }

  it('resumes when the identity matches and no checkpoint is ahead', async () => {
    const { resumed } = await bind(
      [
        [IDENTITY_CHECKPOINT, 'u1'],
        ['pods', '100'],
      ],
      'u1',
      '200',
    );
    expect(resumed).toEqual(new Map([['pods', '100']]));
  });

  it('discards checkpoints of another identity', async () => {
    const { resumed, stored } = await bind(
      [
        [IDENTITY_CHECKPOINT, 'u0'],
        ['pods', '100'],
      ],
      'u1',
      '200',
    );
    expect(resumed.size).toBe(0);
    expect(stored).toEqual(new Map([[IDENTITY_CHECKPOINT, 'u1']]));
  });

  it('discards checkpoints ahead of the cluster under the same identity', async () => {
    const { resumed, stored } = await bind(
      [
        [IDENTITY_CHECKPOINT, 'u1'],
        ['pods', '1411'],
        ['replicasets', '100'],
      ],
      'u1',
      '233',
    );
    expect(resumed.size).toBe(0);
    expect(stored).toEqual(new Map([[IDENTITY_CHECKPOINT, 'u1']]));
  });
});
