// The SQS WorkQueue: a FIFO queue with MessageGroupId = keyString(key) (so a key is never in flight twice),
// a standard delay queue for addAfter (sqs-delay-pump.ts) and a standard dead-letter queue (sqs-dead-letters.ts).
//
// - add sends one message with a unique MessageDeduplicationId; duplicates are coalesced on receive
//   (sqs-run-history.ts). Within one process that gives "N adds while waiting → 1 run"; across processes a
//   duplicate may cost one extra reconcile.
// - lease = receipt handle (the token; new on every receive) + visibility timeout; renew =
//   ChangeMessageVisibility. leaseMs is rounded up to whole seconds. A lease is treated as lost once its
//   local deadline (measured from before the receive) has passed: done/retry/renew then do nothing, because
//   fauxqs accepts stale receipt handles silently and real SQS may already have redelivered the message.
// - retry = ChangeMessageVisibility(backoff, rounded up to whole seconds) on the held message: the group stays
//   locked, so adds that arrive meanwhile wait for the retry run (which covers them). failures =
//   ApproximateReceiveCount - 1, so done (delete) resets it and a lost lease counts as a failure, as in the
//   other drivers. A message released unhanded (close, a buffered message gone stale) also counts as one.
// - per-cluster fairness and caps are per process and best effort (sqs-fair-buffer.ts).
// - depth counts messages, not keys (duplicates waiting to be coalesced count), and misses retry backoffs.
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { MalformedKeyError, parseKey, type ReconcileKey } from '../../kube/key.js';
import type { DeadLetter, Lease, QueueOptions, RetryOutcome, WorkQueue } from '../work-queue.js';
import { backoffDelay } from '../work-queue.js';
import { checkedKeyString, clusterCap, errorReason, resolveQueueOptions } from '../queue-options.js';
import type { ResolvedQueueOptions } from '../queue-options.js';
import type { SqsQueueUrls } from './sqs-setup.js';
import type { SqsRecordLike } from './sqs-record-lease.js';
import { SqsDelayPump } from './sqs-delay-pump.js';
import { SqsDeadLetters } from './sqs-dead-letters.js';
import { SqsRunHistory } from './sqs-run-history.js';
import { SqsFairBuffer, type Received } from './sqs-fair-buffer.js';

export type SqsQueueOptions = QueueOptions & {
  readonly client: SQSClient;
  readonly urls: SqsQueueUrls;
  /** Close the client on close(); default false. */
  readonly ownsClient?: boolean;
};

/** What holdRecord made of a Lambda event record. */
export type HeldRecord =
  | { readonly lease: Lease }
  | { readonly dropped: 'malformed'; readonly reason: string }
  | { readonly dropped: 'redundant' }
  | { readonly dropped: 'expired' };

/** A work message as SQS delivered it, to a receive of ours or to Lambda. */
type Delivered = {
  readonly body: string;
  readonly receiptHandle: string;
  readonly sentAt: number;
  readonly runStart: number;
  readonly failures: number;
};

const MAX_BUFFER = 20;
const IDLE_POLL_MS = 50;

export class SqsQueue implements WorkQueue {
  readonly driver = 'sqs' as const;
  private readonly options: ResolvedQueueOptions;
  private readonly client: SQSClient;
  private readonly urls: SqsQueueUrls;
  private readonly leaseSeconds: number;
  private readonly delay: SqsDelayPump;
  private readonly dead: SqsDeadLetters;
  private readonly history = new SqsRunHistory();
  private readonly buffer = new SqsFairBuffer();
  private readonly held = new Map<string, Received>();
  private readonly heldPerCluster = new Map<string, number>();
  private closed = false;

  constructor(private readonly config: SqsQueueOptions) {
    this.options = resolveQueueOptions(config);
    this.client = config.client;
    this.urls = config.urls;
    this.leaseSeconds = Math.min(43_200, Math.max(1, Math.ceil(this.options.leaseMs / 1000)));
    this.dead = new SqsDeadLetters(this.client, this.urls.dead);
    this.delay = new SqsDelayPump(this.client, this.urls.delay, {
      workUrl: this.urls.work,
      onMalformed: async (raw, reason) => {
        await this.dead.park(null, raw, reason, 0);
        config.onMalformed?.(raw, reason);
      },
    });
  }

  async add(key: ReconcileKey): Promise<void> {
    await this.send(checkedKeyString(key));
  }

  async addAfter(key: ReconcileKey, delayMs: number): Promise<void> {
    const id = checkedKeyString(key);
    if (delayMs <= 0) return this.send(id);
    await this.delay.send(id, Date.now() + delayMs);
  }

  async get(waitMs = 0): Promise<Lease | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (this.closed) return null;
      this.sweepExpired();
      await this.delay.pumpIfDue();
      const lease = await this.takeBuffered();
      if (lease) return lease;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return null;
      if (this.buffer.size >= MAX_BUFFER || (await this.receive(remaining >= 1000 ? 1 : 0)) === 0) {
        if (remaining < 1000) await sleep(Math.min(remaining, IDLE_POLL_MS));
      }
    }
  }

  async done(lease: Lease): Promise<void> {
    const held = this.release(lease);
    if (!held) return;
    await this.client.send(new DeleteMessageCommand({ QueueUrl: this.urls.work, ReceiptHandle: held.receiptHandle }));
    this.history.completed(held.id, held.runStart);
  }

  async retry(lease: Lease, error: unknown): Promise<RetryOutcome> {
    const held = this.release(lease);
    if (!held) return { outcome: 'lease-lost' };
    const failures = held.failures + 1;
    if (failures >= this.options.maxFailures) {
      await this.park(held, errorReason(error), failures);
      return { outcome: 'dead-lettered' };
    }
    const seconds = Math.ceil(backoffDelay(held.failures, this.options.baseDelayMs, this.options.maxDelayMs) / 1000);
    const visibility = Math.min(43_200, Math.max(1, seconds));
    try {
      await this.client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: this.urls.work,
          ReceiptHandle: held.receiptHandle,
          VisibilityTimeout: visibility,
        }),
      );
    } catch {
      return { outcome: 'lease-lost' };
    }
    return { outcome: 'retried', delayMs: visibility * 1000 };
  }

  async deadLetter(lease: Lease, reason: string): Promise<void> {
    const held = this.release(lease);
    if (held) await this.park(held, reason, held.failures);
  }

  async renew(lease: Lease): Promise<boolean> {
    const held = this.held.get(lease.token);
    if (!held || held.id !== lease.id) return false;
    const before = Date.now();
    if (before >= held.deadline || !(await this.extend(held, before))) {
      this.release(lease);
      return false;
    }
    return true;
  }

  async deadLetters(): Promise<DeadLetter[]> {
    return this.dead.list();
  }

  /**
   * The Lambda path: a work-queue message that Lambda received (an event record) becomes a lease held by this
   * queue, so done/retry/deadLetter act on it exactly as on one get() received. `visibilityMs` is how long
   * the message stays invisible (the queue's visibility timeout). A malformed body is dead-lettered and
   * deleted here, and a message made redundant by a later completed run is deleted: neither is handed out.
   */
  async holdRecord(record: SqsRecordLike, visibilityMs: number): Promise<HeldRecord> {
    const before = Date.now();
    const sentAt = Number(record.attributes.SentTimestamp);
    const delivered: Delivered = {
      body: record.body,
      receiptHandle: record.receiptHandle ?? '',
      sentAt,
      runStart: Number(record.attributes.ApproximateFirstReceiveTimestamp ?? sentAt),
      failures: Math.max(0, Number(record.attributes.ApproximateReceiveCount) - 1),
    };
    const item = await this.admit(delivered, before, before + visibilityMs);
    if ('dropped' in item) {
      await this.client.send(
        new DeleteMessageCommand({ QueueUrl: this.urls.work, ReceiptHandle: delivered.receiptHandle }),
      );
      return item;
    }
    this.held.set(item.receiptHandle, item);
    this.heldPerCluster.set(item.cluster, (this.heldPerCluster.get(item.cluster) ?? 0) + 1);
    return {
      lease: { key: item.key, id: item.id, token: item.receiptHandle, readyAt: item.sentAt, failures: item.failures },
    };
  }

  /**
   * The one rule for a delivered work message: a malformed body is dead-lettered (and reported); one sent
   * before a completed run of its key started is redundant; one received maxFailures times (its holders kept
   * losing the lease) is dead-lettered; anything else becomes a Received item. Deleting a dropped message is
   * the caller's (batched on our own receives).
   */
  private async admit(
    m: Delivered,
    receivedAt: number,
    deadline: number,
  ): Promise<Received | Extract<HeldRecord, { dropped: string }>> {
    let key: ReconcileKey;
    try {
      key = parseKey(m.body);
    } catch (err) {
      if (!(err instanceof MalformedKeyError)) throw err;
      await this.dead.park(null, m.body, err.message, m.failures);
      this.config.onMalformed?.(m.body, err.message);
      return { dropped: 'malformed', reason: err.message };
    }
    if (this.history.isRedundant(m.body, m.sentAt)) return { dropped: 'redundant' };
    if (m.failures >= this.options.maxFailures) {
      await this.dead.park(m.body, undefined, `lease expired (not renewed within ${this.leaseSeconds} s)`, m.failures);
      return { dropped: 'expired' };
    }
    return { key, id: m.body, cluster: key.cluster, ...m, receivedAt, deadline };
  }

  /** The Lambda subscribed to the delay queue: move due delayed adds to the work queue, re-hop the rest. */
  async routeDelayed(bodies: readonly string[]): Promise<void> {
    await this.delay.route(bodies);
  }

  async redrive(match?: (d: DeadLetter) => boolean): Promise<number> {
    return this.dead.redrive(match, (id) => this.send(id));
  }

  async depth(): Promise<number> {
    const count = async (QueueUrl: string): Promise<number> => {
      const names = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'] as const;
      const out = await this.client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: [...names] }));
      return names.reduce((sum, name) => sum + Number(out.Attributes?.[name] ?? 0), 0);
    };
    const [work, delayed] = await Promise.all([count(this.urls.work), count(this.urls.delay)]);
    return work + delayed + this.buffer.size;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const buffered = this.buffer.drain();
    await Promise.all(buffered.map((item) => this.changeVisibility(item.receiptHandle, 0)));
    if (this.config.ownsClient) this.client.destroy();
  }

  private async send(id: string): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.urls.work,
        MessageBody: id,
        MessageGroupId: id,
        MessageDeduplicationId: randomUUID(),
      }),
    );
  }

  /** One ReceiveMessage; returns how many messages came back (including those dropped as redundant). */
  private async receive(waitSeconds: number): Promise<number> {
    const before = Date.now();
    const out = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.urls.work,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: this.leaseSeconds,
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['SentTimestamp', 'ApproximateReceiveCount', 'ApproximateFirstReceiveTimestamp'],
      }),
    );
    const messages = out.Messages ?? [];
    const discard: string[] = [];
    for (const m of messages) {
      const sentAt = Number(m.Attributes?.SentTimestamp ?? 0);
      const delivered: Delivered = {
        body: m.Body ?? '',
        receiptHandle: m.ReceiptHandle ?? '',
        sentAt,
        runStart: Number(m.Attributes?.ApproximateFirstReceiveTimestamp ?? 0),
        failures: Math.max(0, Number(m.Attributes?.ApproximateReceiveCount ?? 1) - 1),
      };
      const item = await this.admit(delivered, before, before + this.leaseSeconds * 1000);
      if ('dropped' in item) discard.push(delivered.receiptHandle);
      else this.buffer.push(item);
    }
    if (Date.now() - before > (this.leaseSeconds * 1000) / 4) {
      // A long poll: the messages may have been received late in it, so restart their visibility now
      // rather than trust a deadline counted from before the poll.
      const fresh = this.buffer.recent(before);
      const now = Date.now();
      const kept = await Promise.all(fresh.map((item) => this.extend(item, now)));
      const lost = fresh.filter((_, i) => !kept[i]);
      if (lost.length > 0) this.buffer.dropStale(Number.POSITIVE_INFINITY, 0, (item) => lost.includes(item));
    }
    if (discard.length > 0) {
      const Entries = discard.map((ReceiptHandle, i) => ({ Id: String(i), ReceiptHandle }));
      await this.client.send(new DeleteMessageBatchCommand({ QueueUrl: this.urls.work, Entries }));
    }
    return messages.length;
  }

  private async takeBuffered(): Promise<Lease | null> {
    const margin = Math.min(1000, (this.leaseSeconds * 1000) / 4);
    this.buffer.dropStale(Date.now(), margin);
    for (;;) {
      const item = this.buffer.take((c) => (this.heldPerCluster.get(c) ?? 0) < clusterCap(this.options, c));
      if (!item) return null;
      const now = Date.now();
      if (now - item.receivedAt > (this.leaseSeconds * 1000) / 3 && !(await this.extend(item, now))) continue;
      this.held.set(item.receiptHandle, item);
      this.heldPerCluster.set(item.cluster, (this.heldPerCluster.get(item.cluster) ?? 0) + 1);
      return { key: item.key, id: item.id, token: item.receiptHandle, readyAt: item.sentAt, failures: item.failures };
    }
  }

  private async extend(item: Received, before: number): Promise<boolean> {
    if (!(await this.changeVisibility(item.receiptHandle, this.leaseSeconds))) return false;
    item.receivedAt = before;
    item.deadline = before + this.leaseSeconds * 1000;
    return true;
  }

  private async changeVisibility(receiptHandle: string, seconds: number): Promise<boolean> {
    try {
      const QueueUrl = this.urls.work;
      await this.client.send(
        new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }),
      );
      return true;
    } catch {
      return false;
    }
  }

  /** Forgets a lease; returns it only if it was still ours and unexpired. */
  private release(lease: Lease): Received | undefined {
    const held = this.held.get(lease.token);
    if (!held || held.id !== lease.id) return undefined;
    this.held.delete(lease.token);
    const count = (this.heldPerCluster.get(held.cluster) ?? 1) - 1;
    if (count > 0) this.heldPerCluster.set(held.cluster, count);
    else this.heldPerCluster.delete(held.cluster);
    return Date.now() < held.deadline ? held : undefined;
  }

  private sweepExpired(): void {
    const now = Date.now();
    for (const held of [...this.held.values()]) {
      if (now >= held.deadline) this.release({ ...held, token: held.receiptHandle, readyAt: held.sentAt });
    }
  }

  private async park(held: Received, reason: string, failures: number): Promise<void> {
    await this.dead.park(held.id, undefined, reason, failures);
    await this.client.send(new DeleteMessageCommand({ QueueUrl: this.urls.work, ReceiptHandle: held.receiptHandle }));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
