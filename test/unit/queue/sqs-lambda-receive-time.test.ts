// The Lambda path's local deadline counts from each record's receive, not from the invocation: the event source
// mapping received the batch with the queue's visibility timeout, and the invocation may start well after that
// (a throttled function). On the SQS test double (test/helpers/queue/sqs-fifo-double.ts); the queue and the fence are
// the real code.
import { describe, expect, it } from '@jest/globals';
import { ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { ReconcileKey } from '../../../shared/kube/key.js';
import { SqsQueue, receivedAtOf } from '../../../shared/queue/sqs/sqs-queue.js';
import type { SqsRecordLike } from '../../../shared/queue/sqs/sqs-record-lease.js';
import { LeaseFence } from '../../../shared/runtime/lease-fence.js';
import { toRecord } from '../../helpers/lambda/sqs.js';
import { SqsFifoDouble } from '../../helpers/queue/sqs-fifo-double.js';

const key = (name: string): ReconcileKey => ({ cluster: 'a', kind: 'Deployment', namespace: 'default', name });
const VISIBILITY_MS = 30_000;

/** A record as Lambda hands it over, received `agoMs` before now for the `count`-th time. */
function received(r: SqsRecordLike, count: number, firstAgoMs: number): SqsRecordLike {
  const first = String(Date.now() - firstAgoMs);
  return {
    ...r,
    attributes: { ...r.attributes, ApproximateReceiveCount: String(count), ApproximateFirstReceiveTimestamp: first },
  };
}

describe('Lambda records: the local deadline counts from the receive', () => {
  it('a first receive counts from ApproximateFirstReceiveTimestamp; a later one from the batch arrival', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues('lambda-receive', VISIBILITY_MS / 1000);
    const queue = new SqsQueue({ client: sqs.asClient(), urls, leaseMs: VISIBILITY_MS });
    for (const name of ['fresh', 'lapsed', 'again']) await queue.add(key(name));
    const out = (await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: urls.work,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: VISIBILITY_MS / 1000,
        MessageSystemAttributeNames: ['All'],
      }),
    )) as { Messages: Message[] };
    const byName = new Map(
      out.Messages.map((m) => toRecord(m, 'arn:aws:sqs:us-east-1:000000000000:lambda-receive.fifo')).map((r) => [
        r.body.split('/').at(-1),
        r,
      ]),
    );
    const records = [
      received(byName.get('fresh') as SqsRecordLike, 1, 20_000), // received 20 s before the invocation
      received(byName.get('lapsed') as SqsRecordLike, 1, 40_000), // its visibility lapsed 10 s ago
      received(byName.get('again') as SqsRecordLike, 2, 40_000), // a redelivery: SQS stamps no later receive
    ];
    const arrived = performance.now();
    const plans = await queue.holdRecords(records, { visibilityMs: VISIBILITY_MS, remainingMs: () => 600_000 });
    const leases = new Map(plans.flatMap((p) => ('lease' in p ? [[p.lease.key.name, p.lease] as const] : [])));
    const fence = (name: string) => new LeaseFence(queue, leases.get(name)!, { leaseMs: VISIBILITY_MS });

    expect(leases.get('fresh')?.grantedAt).toBeGreaterThan(arrived - 20_200);
    expect(leases.get('fresh')?.grantedAt).toBeLessThan(arrived - 19_800);
    expect(fence('fresh').held()).toBe(true);
    // Another invocation may hold it now: this one must not write, and its done() does not delete it.
    expect(fence('lapsed').held()).toBe(false);
    expect(await queue.done(leases.get('lapsed')!)).toEqual({ outcome: 'lease-lost' });
    expect(leases.get('again')?.grantedAt).toBeGreaterThanOrEqual(arrived);
    expect(fence('again').held()).toBe(true);
    await queue.close();
  });

  it.each([
    { name: 'first receive', count: '1', first: '1000', want: 1_000 },
    { name: 'a redelivery', count: '3', first: '1000', want: 5_000 },
    { name: 'a first receive stamped after the arrival (clock skew)', count: '1', first: '9000', want: 5_000 },
    { name: 'no timestamp', count: '1', first: undefined, want: 5_000 },
    { name: 'a timestamp that is not a time', count: '1', first: 'soon', want: 5_000 },
  ])('receivedAtOf: $name', ({ count, first, want }) => {
    const record: SqsRecordLike = {
      body: 'a/Deployment/default/web',
      messageId: 'm',
      attributes: {
        SentTimestamp: '500',
        ApproximateReceiveCount: count,
        ...(first !== undefined && { ApproximateFirstReceiveTimestamp: first }),
      },
    };
    expect(receivedAtOf(record, 5_000)).toBe(want);
  });
});
