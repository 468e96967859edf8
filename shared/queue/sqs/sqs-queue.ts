// The SQS WorkQueue: a FIFO queue whose MessageGroupId is the key (sqs-message.ts: hashed past 128
// characters), so a key is never in flight twice fleet-wide; a standard delay queue for addAfter
// (sqs-delay-pump.ts) and a standard dead-letter queue (sqs-dead-letters.ts).
//
// - add sends one message with a unique MessageDeduplicationId. An add made while the key is held waits
//   behind the held message in its group (the group is locked while a message is in flight): that is the
//   dirty mark, run once more after done.
// - One lease per key per process, whatever a receive returns. Real SQS returns as many messages of one
//   group as it can in one receive (fauxqs returns one per group): the first is the key's message, the
//   others were sent before any run that has not started yet, so they are covered by that run and deleted.
//   A message of a key already held (possible only once the held message's visibility lapsed) is handed
//   back as a fresh copy so that it runs after the current run. Messages sent before the start of a
//   completed run of their key are redundant and deleted (sqs-run-history.ts).
// - lease = receipt handle (the token; new on every receive) + visibility timeout; renew =
//   ChangeMessageVisibility. leaseMs is rounded up to whole seconds. A lease is treated as lost once its
//   local deadline (measured from before the receive) has passed: done/retry/renew then do nothing, because
//   fauxqs accepts stale receipt handles silently and real SQS may already have redelivered the message.
// - failures: carried in a message attribute plus receives that did not end in a delete (sqs-message.ts).
//   Buffered messages (received, not handed out: e.g. their cluster is at its cap) are kept invisible with
//   ChangeMessageVisibility and handed back unrun as a fresh copy on close, so a receive that never ran is
//   never counted as a failure, and nothing is ever dead-lettered for its receive count.
// - retry = ChangeMessageVisibility(backoff, whole seconds) on the held message, without end: the group
//   stays locked, so adds made during the failed run wait for the retry run, which covers them. A backoff
//   past what ChangeMessageVisibility allows (12 h from the receive) hops through the delay queue instead,
//   carrying the failure count. A conflict retry always hops through the delay queue, carrying the failure
//   count unchanged and the conflict count + 1 (a kept message's next receive would count as a failure);
//   adds made while it waits run at once, as client-go's do after a rate-limited requeue.
// - done(lease, requeueAfterMs) sends the requeue first and deletes the held message second: a crash in
//   between costs one extra run, never a lost requeue.
// - the Lambda path (holdRecords): the event source mapping received the batch with the queue's visibility
//   timeout; renewals extend to at least that and to the function's remaining time, never shorter. A record's
//   local deadline counts from its receive (receivedAtOf), not from the invocation, which may start later.
//   The function never deletes a record of its batch: the mapping deletes every record the function does not
//   report in batchItemFailures once the invocation returns (and none if it fails), so each record is deleted
//   exactly once. What done/retry/deadLetter would delete on a worker is left to the mapping (settleRecord
//   says 'delete'); their sends (a requeue, a delay hop, a dead letter, a fresh copy) still happen first, so a
//   failed invocation costs a run, never a lost key. A run's group stays locked until the batch returns.
//   A renewal (the fence before each batch of writes) sends nothing while the record's visibility outlasts the
//   invocation by a third of the queue's visibility: the message cannot be handed to anyone before then.
// - backoffBreakdown() is what this process knows: keys it retried whose backoff has not ended and which it
//   has not received since. Other processes' retries are not seen (best effort).
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
import { BAD_SIGNATURE, keyId, signatureKeyId } from '../message-signing.js';
import type {
  DeadLetter,
  DoneOutcome,
  Lease,
  QueueOptions,
  RedriveOptions,
  RetryOutcome,
  WorkQueue,
} from '../work-queue.js';
import { backoffDelay } from '../work-queue.js';
import { checkedKeyString, clusterCap, resolveQueueOptions } from '../queue-options.js';
import type { ResolvedQueueOptions } from '../queue-options.js';
import type { SqsQueueUrls } from './sqs-setup.js';
import type { SqsRecordLike } from './sqs-record-lease.js';
import { SqsDelayPump } from './sqs-delay-pump.js';
import { SqsDeadLetters } from './sqs-dead-letters.js';
import { SqsRunHistory } from './sqs-run-history.js';
import { SqsFairBuffer, type Received } from './sqs-fair-buffer.js';
import {
  SIGNATURE_ATTRIBUTE,
  attribute,
  deliveredConflicts,
  deliveredFailures,
  isSignedBy,
  messageAttributes,
  messageGroupId,
  type AttributeBag,
} from './sqs-message.js';

export type SqsQueueOptions = QueueOptions & {
  readonly client: SQSClient;
  readonly urls: SqsQueueUrls;
  /** Close the client on close(); default false. */
  readonly ownsClient?: boolean;
};

/** How long Lambda holds a batch: the queue's visibility timeout, and the invocation's remaining time. */
export type LambdaTiming = {
  /** The work queue's VisibilityTimeout (what the event source mapping received the batch with). */
  readonly visibilityMs: number;
  /** context.getRemainingTimeInMillis() */
  readonly remainingMs: () => number;
};

/** What holdRecords made of one key's records in a Lambda batch. */
export type RecordPlan =
  /** Run this lease; `coalesced` records (same key, covered by this run) may be deleted whatever it does. */
  | { readonly lease: Lease; readonly messageId: string; readonly coalesced: readonly string[] }
  /** Not a valid key, or a bad signature: dead-lettered and deleted here. */
  | { readonly dropped: 'invalid'; readonly messageId: string; readonly reason: string }
  /** Covered by a completed run: deleted here. */
  | { readonly dropped: 'redundant'; readonly messageId: string }
  /** Its key is held by a run of this process that has not ended: sent again as a fresh copy, deleted here. */
  | { readonly dropped: 'requeued'; readonly messageId: string };

/** A work message as SQS delivered it, to a receive of ours or to Lambda. */
type Delivered = {
  readonly messageId: string;
  readonly body: string;
  readonly receiptHandle: string;
  readonly sentAt: number;
  readonly runStart: number;
  readonly failures: number;
  readonly conflicts: number;
  readonly signature: string | undefined;
};

type Held = Received & { readonly lambda?: LambdaTiming };
type Dropped = { readonly dropped: 'invalid'; readonly reason: string } | { readonly dropped: 'redundant' };

const MAX_BUFFER = 20;
const IDLE_POLL_MS = 50;
/** ChangeMessageVisibility's limit (and the limit on a message's total visibility from its receive). */
const MAX_VISIBILITY_S = 43_200;

export class SqsQueue implements WorkQueue {
  readonly driver = 'sqs' as const;
  private readonly options: ResolvedQueueOptions;
  /** The key id the current secret signs with (undefined when unsigned). */
  private readonly currentKeyId: string | undefined;
  private readonly client: SQSClient;
  private readonly urls: SqsQueueUrls;
  private readonly leaseSeconds: number;
  private readonly delay: SqsDelayPump;
  private readonly dead: SqsDeadLetters;
  private readonly history = new SqsRunHistory();
  private readonly buffer = new SqsFairBuffer();
  /** Held leases by token (receipt handle), and by key id. */
  private readonly held = new Map<string, Held>();
  private readonly heldById = new Map<string, Held>();
  private readonly heldPerCluster = new Map<string, number>();
  /** Keys this process retried, until their backoff ends or they are received again. */
  private readonly backingOff = new Map<string, { cluster: string; until: number }>();
  /** Lambda leases whose run finished with its message ('deleted': the mapping deletes it) or kept it (retried). */
  private readonly settled = new Map<string, 'deleted' | 'kept'>();
  private closed = false;

  constructor(private readonly config: SqsQueueOptions) {
    this.options = resolveQueueOptions(config);
    this.currentKeyId = this.options.signingSecret === undefined ? undefined : keyId(this.options.signingSecret);
    this.client = config.client;
    this.urls = config.urls;
    this.leaseSeconds = Math.min(MAX_VISIBILITY_S, Math.max(1, Math.ceil(this.options.leaseMs / 1000)));
    this.dead = new SqsDeadLetters(this.client, this.urls.dead);
    this.delay = new SqsDelayPump(this.client, this.urls.delay, {
      workUrl: this.urls.work,
      signingSecret: this.options.signingSecret,
      signingSecretPrevious: this.options.signingSecretPrevious,
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
      await this.keepBufferedVisible();
      const lease = await this.takeBuffered();
      if (lease) return lease;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return null;
      if (this.buffer.size >= MAX_BUFFER || (await this.receive(remaining >= 1000 ? 1 : 0)) === 0) {
        if (remaining < 1000 || this.buffer.size >= MAX_BUFFER) await sleep(Math.min(remaining, IDLE_POLL_MS));
      }
    }
  }

  async done(lease: Lease, requeueAfterMs?: number): Promise<DoneOutcome> {
    const held = this.release(lease);
    if (!held) return { outcome: 'lease-lost' };
    // The requeue first, the delete second: a crash in between runs the key once more, never loses it.
    if (requeueAfterMs !== undefined) {
      if (requeueAfterMs > 0) await this.delay.send(held.id, Date.now() + requeueAfterMs);
      else await this.send(held.id);
    }
    await this.deleteHeld(held);
    this.settle(held, 'deleted');
    this.backingOff.delete(held.id);
    this.history.completed(held.id, held.runStart);
    return { outcome: 'done' };
  }

  async retry(lease: Lease, _error: unknown, options?: { readonly conflict?: boolean }): Promise<RetryOutcome> {
    const held = this.release(lease);
    if (!held) return { outcome: 'lease-lost' };
    if (options?.conflict) {
      const conflictMs = backoffDelay(held.conflicts, this.options.baseDelayMs, this.options.maxDelayMs);
      const wait = Math.max(1, Math.ceil(conflictMs / 1000));
      await this.delay.send(held.id, Date.now() + wait * 1000, held.failures, held.conflicts + 1);
      await this.deleteHeld(held);
      return this.retried(held, wait * 1000, 'deleted');
    }
    const delayMs = backoffDelay(held.failures, this.options.baseDelayMs, this.options.maxDelayMs);
    const seconds = Math.max(1, Math.ceil(delayMs / 1000));
    // A message signed by a previous secret is not kept: the copy sent through the delay queue is signed anew, so a
    // key that keeps failing through a rotation window is not dead-lettered when the window closes.
    if (seconds <= MAX_VISIBILITY_S && !held.staleSignature) {
      try {
        await this.client.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: this.urls.work,
            ReceiptHandle: held.receiptHandle,
            VisibilityTimeout: seconds,
          }),
        );
        return this.retried(held, seconds * 1000, 'kept');
      } catch (err) {
        // Past the 12 h a message may stay invisible from its receive: hop through the delay queue below.
        if (errorName(err) !== 'InvalidParameterValue') return { outcome: 'lease-lost' };
      }
    }
    await this.delay.send(held.id, Date.now() + seconds * 1000, held.failures + 1, held.conflicts);
    await this.deleteHeld(held);
    return this.retried(held, seconds * 1000, 'deleted');
  }

  async deadLetter(lease: Lease, reason: string): Promise<void> {
    const held = this.release(lease);
    if (!held) return;
    await this.dead.park(held.id, undefined, reason, held.failures);
    await this.deleteHeld(held);
    this.settle(held, 'deleted');
    this.backingOff.delete(held.id);
  }

  async parkInvalid(raw: string, reason: string): Promise<void> {
    await this.dead.park(null, raw, reason, 0);
  }

  async backoffBreakdown(): Promise<Array<{ cluster: string; keys: number }>> {
    const now = Date.now();
    const counts = new Map<string, number>();
    for (const [id, { cluster, until }] of [...this.backingOff]) {
      if (until <= now) this.backingOff.delete(id);
      else counts.set(cluster, (counts.get(cluster) ?? 0) + 1);
    }
    return [...counts].map(([cluster, keys]) => ({ cluster, keys }));
  }

  async renew(lease: Lease): Promise<boolean> {
    const held = this.held.get(lease.token);
    if (!held || held.id !== lease.id) return false;
    const before = Date.now();
    if (before >= held.deadline) {
      this.release(lease);
      return false;
    }
    if (outlastsInvocation(held, before)) return true;
    if (!(await this.extend(held, before, this.visibilitySeconds(held)))) {
      this.release(lease);
      return false;
    }
    return true;
  }

  async deadLetters(): Promise<DeadLetter[]> {
    return this.dead.list();
  }

  /**
   * The Lambda path: a batch the event source mapping received from the work queue. Each record is admitted
   * by the same rule as our own receives (invalid → dead letter, redundant → deleted); the valid records of
   * one key become ONE lease (the first record), the others are coalesced into it: they were all sent before
   * the run starts. Leases are held until settle(); renewals never shorten Lambda's visibility. Nothing is
   * deleted here: a dropped record (dead-lettered, redundant, or sent again as a fresh copy) is left for the
   * event source mapping to delete, as it is not reported failed.
   */
  async holdRecords(records: readonly SqsRecordLike[], timing: LambdaTiming): Promise<RecordPlan[]> {
    const granted = performance.now();
    const before = Date.now();
    const plans: RecordPlan[] = [];
    const leases = new Map<string, { lease: Lease; messageId: string; coalesced: string[] }>();
    for (const record of records) {
      const receivedAt = receivedAtOf(record, before);
      const deadline = receivedAt + timing.visibilityMs;
      const item = await this.admit(fromRecord(record), receivedAt, deadline, granted - (before - receivedAt));
      if ('dropped' in item) {
        plans.push({ ...item, messageId: record.messageId });
        continue;
      }
      const first = leases.get(item.id);
      if (first) {
        first.coalesced.push(record.messageId);
        continue;
      }
      if (this.heldById.has(item.id)) {
        // Held by an unfinished run of this process: a fresh copy runs after it (the mapping deletes this one).
        await this.send(item.id, item.failures, item.conflicts);
        plans.push({ dropped: 'requeued', messageId: record.messageId });
        continue;
      }
      const held: Held = { ...item, lambda: timing };
      this.hold(held);
      const entry = { lease: leaseOf(held), messageId: record.messageId, coalesced: [] as string[] };
      leases.set(item.id, entry);
      plans.push(entry);
    }
    return plans;
  }

  /**
   * After a Lambda record's run: 'delete' when the run is finished with its message (done, dead-lettered, or a
   * retry that hopped through the delay queue): leave it out of batchItemFailures and the event source mapping
   * deletes it; 'keep' when the message must stay (retried with its visibility set to the backoff, lease lost,
   * or the run ended without done/retry): report it in batchItemFailures.
   */
  settleRecord(lease: Lease): 'delete' | 'keep' {
    const outcome = this.settled.get(lease.token);
    this.settled.delete(lease.token);
    if (this.held.get(lease.token)?.id === lease.id) this.release(lease);
    return outcome === 'deleted' ? 'delete' : 'keep';
  }

  /** The Lambda subscribed to the delay queue: move due delayed adds to the work queue, re-hop the rest. */
  async routeDelayed(bodies: readonly string[]): Promise<void> {
    await this.delay.route(bodies);
  }

  async redrive(match?: (d: DeadLetter) => boolean, options?: RedriveOptions): Promise<number> {
    return this.dead.redrive(match, (id) => this.send(id), options);
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
    // Buffered messages never ran: hand them back as fresh copies, so their receive is not a failure.
    const buffered = this.buffer.drain();
    await Promise.all(buffered.map((item) => this.handBack(item).catch(() => undefined)));
    if (this.config.ownsClient) this.client.destroy();
  }

  private async send(id: string, failures = 0, conflicts = 0): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.urls.work,
        MessageBody: id,
        MessageGroupId: messageGroupId(id),
        MessageDeduplicationId: randomUUID(),
        ...messageAttributes(id, failures, this.options.signingSecret, conflicts),
      }),
    );
  }

  /** A received message that will not run now goes back as a fresh copy (its failures carried), then is deleted. */
  private async handBack(item: Received): Promise<void> {
    await this.send(item.id, item.failures, item.conflicts);
    await this.deleteWork(item.receiptHandle);
  }

  /** One ReceiveMessage; returns how many messages came back (including those dropped or coalesced). */
  private async receive(waitSeconds: number): Promise<number> {
    const granted = performance.now();
    const before = Date.now();
    const out = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.urls.work,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: this.leaseSeconds,
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['SentTimestamp', 'ApproximateReceiveCount', 'ApproximateFirstReceiveTimestamp'],
        MessageAttributeNames: ['All'],
      }),
    );
    const messages = out.Messages ?? [];
    const discard: string[] = [];
    const fresh: Received[] = [];
    this.sweepExpired();
    for (const m of messages) {
      const delivered: Delivered = {
        messageId: m.MessageId ?? '',
        body: m.Body ?? '',
        receiptHandle: m.ReceiptHandle ?? '',
        sentAt: Number(m.Attributes?.SentTimestamp ?? 0),
        runStart: Number(m.Attributes?.ApproximateFirstReceiveTimestamp ?? 0),
        failures: deliveredFailures(m.MessageAttributes, m.Attributes?.ApproximateReceiveCount),
        conflicts: deliveredConflicts(m.MessageAttributes),
        signature: attribute(m.MessageAttributes, SIGNATURE_ATTRIBUTE),
      };
      const item = await this.admit(delivered, before, before + this.leaseSeconds * 1000, granted);
      if ('dropped' in item) {
        discard.push(delivered.receiptHandle);
        continue;
      }
      this.backingOff.delete(item.id);
      const held = this.heldById.get(item.id);
      const buffered = this.buffer.find(item.id);
      if (held?.messageId === item.messageId || buffered?.messageId === item.messageId) {
        // Our own message again: its visibility lapsed and SQS redelivered it; the old handle is dead.
        if (held) this.release(leaseOf(held));
        if (buffered) this.buffer.remove(buffered);
        this.buffer.push(item);
        fresh.push(item);
      } else if (held) {
        // Sent while the key is held (the held message's group lock lapsed): run it after the current run.
        await this.handBack(item);
      } else if (buffered) {
        // Another message of a buffered key: its run has not started, so it covers this add.
        discard.push(delivered.receiptHandle);
      } else {
        this.buffer.push(item);
        fresh.push(item);
      }
    }
    if (Date.now() - before > (this.leaseSeconds * 1000) / 4) {
      // A long poll: the messages may have been received late in it, so restart their visibility now
      // rather than trust a deadline counted from before the poll.
      const now = Date.now();
      const kept = await Promise.all(fresh.map((item) => this.extend(item, now, this.leaseSeconds)));
      for (const [i, item] of fresh.entries()) if (!kept[i]) this.buffer.remove(item);
    }
    await this.deleteWorkBatch(discard);
    return messages.length;
  }

  /**
   * The one rule for a delivered work message: a body that is not a key, or (with a signingSecret) whose
   * signature is missing or wrong, is dead-lettered raw (and reported), never handed out; one sent before a
   * completed run of its key started is redundant; anything else becomes a Received item. Never dead-lettered
   * for its receive count. Deleting a dropped message is the caller's.
   */
  private async admit(
    m: Delivered,
    receivedAt: number,
    deadline: number,
    grantedAt: number,
  ): Promise<Received | Dropped> {
    let key: ReconcileKey;
    try {
      key = parseKey(m.body);
    } catch (err) {
      if (!(err instanceof MalformedKeyError)) throw err;
      return this.parkRaw(m.body, err.message);
    }
    if (!isSignedBy(this.options, m.body, m.signature)) return this.parkRaw(m.body, BAD_SIGNATURE, m.signature);
    if (this.history.isRedundant(m.body, m.sentAt)) return { dropped: 'redundant' };
    return {
      key,
      id: m.body,
      cluster: key.cluster,
      messageId: m.messageId,
      receiptHandle: m.receiptHandle,
      sentAt: m.sentAt,
      runStart: m.runStart,
      failures: m.failures,
      conflicts: m.conflicts,
      receivedAt,
      grantedAt,
      deadline,
      ...(this.currentKeyId !== undefined &&
        signatureKeyId(m.signature) !== this.currentKeyId && { staleSignature: true }),
    };
  }

  /** A raw letter keeps the signature it carried (for `fleetq dlq redrive`), bounded. */
  private async parkRaw(raw: string, reason: string, signature?: string): Promise<Dropped> {
    await this.dead.park(null, raw, reason, 0, signature?.slice(0, 200));
    this.config.onMalformed?.(raw, reason);
    return { dropped: 'invalid', reason };
  }

  /** Buffered messages about to become visible again are extended: a held-back message must not go stale. */
  private async keepBufferedVisible(): Promise<void> {
    const margin = Math.min(5000, (this.leaseSeconds * 1000) / 3);
    const now = Date.now();
    for (const item of this.buffer.expiring(now, margin)) {
      if (!(await this.extend(item, now, this.leaseSeconds))) this.buffer.remove(item);
    }
  }

  private async takeBuffered(): Promise<Lease | null> {
    for (;;) {
      const item = this.buffer.take((c) => (this.heldPerCluster.get(c) ?? 0) < clusterCap(this.options, c));
      if (!item) return null;
      const now = Date.now();
      if (now - item.receivedAt > (this.leaseSeconds * 1000) / 3 && !(await this.extend(item, now, this.leaseSeconds)))
        continue;
      this.hold(item);
      return leaseOf(item);
    }
  }

  private hold(item: Held): void {
    this.held.set(item.receiptHandle, item);
    this.heldById.set(item.id, item);
    this.heldPerCluster.set(item.cluster, (this.heldPerCluster.get(item.cluster) ?? 0) + 1);
  }

  /** Lambda: at least the queue's visibility and the invocation's remaining time; workers: the lease. */
  private visibilitySeconds(held: Held): number {
    if (!held.lambda) return this.leaseSeconds;
    const ms = Math.max(held.lambda.visibilityMs, held.lambda.remainingMs());
    return Math.min(MAX_VISIBILITY_S, Math.max(1, Math.ceil(ms / 1000)));
  }

  private async extend(item: Received, before: number, seconds: number): Promise<boolean> {
    const granted = performance.now() - (Date.now() - before);
    if (!(await this.changeVisibility(item.receiptHandle, seconds))) return false;
    item.grantedAt = granted;
    item.receivedAt = before;
    item.deadline = before + seconds * 1000;
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

  /** A worker deletes the message it held; a Lambda record is deleted by the event source mapping instead. */
  private async deleteHeld(held: Held): Promise<void> {
    if (!held.lambda) await this.deleteWork(held.receiptHandle);
  }

  private async deleteWork(receiptHandle: string): Promise<void> {
    await this.client.send(new DeleteMessageCommand({ QueueUrl: this.urls.work, ReceiptHandle: receiptHandle }));
  }

  private async deleteWorkBatch(receiptHandles: readonly string[]): Promise<void> {
    for (let i = 0; i < receiptHandles.length; i += 10) {
      const Entries = receiptHandles.slice(i, i + 10).map((ReceiptHandle, j) => ({ Id: String(j), ReceiptHandle }));
      await this.client.send(new DeleteMessageBatchCommand({ QueueUrl: this.urls.work, Entries }));
    }
  }

  private retried(held: Held, delayMs: number, message: 'kept' | 'deleted'): RetryOutcome {
    this.settle(held, message);
    this.backingOff.set(held.id, { cluster: held.cluster, until: Date.now() + delayMs });
    return { outcome: 'retried', delayMs };
  }

  private settle(held: Held, outcome: 'deleted' | 'kept'): void {
    if (held.lambda) this.settled.set(held.receiptHandle, outcome);
  }

  /** Forgets a lease; returns it only if it was still ours and unexpired. */
  private release(lease: Lease): Held | undefined {
    const held = this.held.get(lease.token);
    if (!held || held.id !== lease.id) return undefined;
    this.held.delete(lease.token);
    if (this.heldById.get(held.id) === held) this.heldById.delete(held.id);
    const count = (this.heldPerCluster.get(held.cluster) ?? 1) - 1;
    if (count > 0) this.heldPerCluster.set(held.cluster, count);
    else this.heldPerCluster.delete(held.cluster);
    return Date.now() < held.deadline ? held : undefined;
  }

  private sweepExpired(): void {
    const now = Date.now();
    for (const held of [...this.held.values()]) {
      if (now >= held.deadline) this.release(leaseOf(held));
    }
  }
}

/**
 * A Lambda record whose visibility (from the mapping's receive) ends well after the invocation must: nobody else
 * can receive it before the function is gone, so a renewal would change nothing and is not sent. The margin is a
 * third of the queue's visibility (at least 2 minutes at the stack's 6 × timeout), beyond the time the invocation
 * has left, against a receive time read from SQS's clock.
 */
function outlastsInvocation(held: Held, now: number): boolean {
  if (!held.lambda) return false;
  return held.deadline - now >= held.lambda.remainingMs() + held.lambda.visibilityMs / 3;
}

function leaseOf(item: Received): Lease {
  const { key, id, receiptHandle: token, sentAt: readyAt, failures, conflicts, grantedAt } = item;
  return { key, id, token, readyAt, failures, conflicts, grantedAt };
}

function fromRecord(record: SqsRecordLike): Delivered {
  const sentAt = Number(record.attributes.SentTimestamp);
  const bag = record.messageAttributes as AttributeBag;
  return {
    messageId: record.messageId,
    body: record.body,
    receiptHandle: record.receiptHandle ?? '',
    sentAt,
    runStart: Number(record.attributes.ApproximateFirstReceiveTimestamp ?? sentAt),
    failures: deliveredFailures(bag, record.attributes.ApproximateReceiveCount),
    conflicts: deliveredConflicts(bag),
    signature: attribute(bag, SIGNATURE_ATTRIBUTE),
  };
}

/**
 * When (Date.now() scale) SQS handed this record to the event source mapping, whose visibility timeout runs
 * from then: its ApproximateFirstReceiveTimestamp when this is its first receive (ApproximateReceiveCount 1).
 * SQS stamps no later receive, so for those the batch's arrival (`arrived`), as before. Never later than the
 * arrival; an attribute that is not a time is ignored.
 */
export function receivedAtOf(record: SqsRecordLike, arrived: number): number {
  if (record.attributes.ApproximateReceiveCount !== '1') return arrived;
  const first = Number(record.attributes.ApproximateFirstReceiveTimestamp);
  return Number.isFinite(first) && first > 0 ? Math.min(first, arrived) : arrived;
}

function errorName(err: unknown): string | undefined {
  return err instanceof Error ? err.name : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
