// `fleetq status` on the sqs driver (the fauxqs emulator): what SQS can tell, approximate counts of the whole
// queue on the `*` row: messages waiting (visible + delayed), not visible (held, or received into a consumer's
// buffer), dead letters.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { createQueue } from '../../shared/queue/index.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { ALL_CLUSTERS, collectStatus } from '../../shared/ops/status.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { startSqsEmulator, type SqsEmulator } from '../helpers/queue/sqs.js';

const key = (name: string): ReconcileKey => ({ cluster: 'c1', kind: 'ConfigMap', namespace: 'default', name });

describe('fleetq status on sqs', () => {
  let sqs: SqsEmulator;
  let queue: WorkQueue;
  const name = `st-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    sqs = await startSqsEmulator();
    queue = await createQueue({ driver: 'sqs', name, endpoint: sqs.endpoint, options: { leaseMs: 60_000 } });
  });
  afterAll(async () => {
    await queue?.close();
    await sqs?.stop();
  });

  it('shows the queue-wide approximate depth, in-flight and dead-letter counts', async () => {
    for (const n of ['a', 'b', 'c']) await queue.add(key(n));
    const lease = await queue.get(5_000);
    expect(lease).not.toBeNull();
    await queue.parkInvalid('not a key', 'malformed');
    const config = loadConfig({ FLEETQ_DRIVER: 'sqs', FLEETQ_QUEUE: name, SQS_ENDPOINT: sqs.endpoint });
    const s = await collectStatus(config);
    const all = s.clusters.find((r) => r.cluster === ALL_CLUSTERS);
    // A consumer receives up to 10 messages at once and keeps what it does not hand out invisible: SQS counts the
    // three as not visible (in flight), not as one held and two waiting.
    expect(all).toMatchObject({ deadLetters: 1, backoff: null });
    expect((all?.depth ?? 0) + (all?.inFlight ?? 0)).toBe(3);
    expect(all?.inFlight).toBeGreaterThanOrEqual(1);
    expect(s.notes.join('\n')).toMatch(/sqs: approximate message counts of the whole queue/);
  });
});
