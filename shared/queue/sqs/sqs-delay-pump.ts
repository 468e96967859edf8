// addAfter for SQS. FIFO queues have no per-message DelaySeconds and SQS caps a delay at 900 s, so a delayed
// add goes to a standard "delay" queue as JSON {id, due, failures?, conflicts?, sig?} with DelaySeconds =
// min(900, ceil(remaining s)). pump() (called from get(), rate-limited, in any process) receives the visible
// ones: those due go to the FIFO queue as an ordinary add (carrying `failures`, for a retry that had to hop
// here, and `conflicts`, for a conflict retry), those still far off are re-sent for another hop. Delays are rounded up to whole seconds: a
// requeueAfter never fires early, and at most ~1 s (plus the pump interval) late. With a signingSecret the
// delayed message is signed too and checked before it is forwarded: the pump would otherwise launder a
// forged delay message into a signed work message.
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { BAD_SIGNATURE, signKey } from '../message-signing.js';
import { isSignedBy, messageAttributes, messageGroupId } from './sqs-message.js';

export const MAX_DELAY_SECONDS = 900;
const PUMP_INTERVAL_MS = 250;

export type ForwardTarget = {
  readonly workUrl: string;
  readonly signingSecret?: string | undefined;
  /** A rotation window's previous secret: hops it signed still verify. */
  readonly signingSecretPrevious?: string | undefined;
  readonly onMalformed: (raw: string, reason: string) => Promise<void>;
};

type Delayed = { id: string; due: number; failures?: number; conflicts?: number; sig?: string };
type Counts = { failures: number; conflicts: number };

function count(value: unknown): number {
  return typeof value === 'number' && value > 0 ? Math.floor(value) : 0;
}

export class SqsDelayPump {
  private nextPumpAt = 0;

  constructor(
    private readonly client: SQSClient,
    private readonly delayUrl: string,
    private readonly target: ForwardTarget,
  ) {}

  /** Schedules `id` for `due`; the counts are carried to the work message (a retry's backoff hop). */
  async send(id: string, due: number, failures = 0, conflicts = 0): Promise<void> {
    const DelaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((due - Date.now()) / 1000)));
    const secret = this.target.signingSecret;
    const body: Delayed = {
      id,
      due,
      ...(failures > 0 && { failures }),
      ...(conflicts > 0 && { conflicts }),
      ...(secret !== undefined && { sig: signKey(secret, id) }),
    };
    await this.client.send(
      new SendMessageCommand({ QueueUrl: this.delayUrl, MessageBody: JSON.stringify(body), DelaySeconds }),
    );
  }

  /** Moves due delayed adds to the FIFO queue; a no-op when the last pump was under 250 ms ago. */
  async pumpIfDue(): Promise<void> {
    const now = Date.now();
    if (now < this.nextPumpAt) return;
    this.nextPumpAt = now + PUMP_INTERVAL_MS;
    for (let round = 0; round < 10; round++) {
      const moved = await this.pumpOnce();
      if (moved < 10) return;
    }
  }

  /**
   * Routes delay-queue message bodies: due ones go to the FIFO queue as ordinary adds, later ones take another
   * hop, malformed ones are parked. The Lambda subscribed to the delay queue calls this with its batch.
   */
  async route(bodies: readonly string[]): Promise<void> {
    const forward: Array<{ id: string } & Counts> = [];
    for (const body of bodies) {
      let parsed: { id?: unknown; due?: unknown; failures?: unknown; conflicts?: unknown; sig?: unknown };
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        parsed = {};
      }
      const failures = count(parsed.failures);
      const conflicts = count(parsed.conflicts);
      if (typeof parsed.id !== 'string' || typeof parsed.due !== 'number') {
        await this.target.onMalformed(body, 'delay message is not {"id": string, "due": number}');
      } else if (!isSignedBy(this.target, parsed.id, typeof parsed.sig === 'string' ? parsed.sig : undefined)) {
        await this.target.onMalformed(body, BAD_SIGNATURE);
      } else if (parsed.due - Date.now() > 1000) {
        await this.send(parsed.id, parsed.due, failures, conflicts); // another hop
      } else {
        forward.push({ id: parsed.id, failures, conflicts });
      }
    }
    for (let i = 0; i < forward.length; i += 10) {
      const batch = forward.slice(i, i + 10);
      const sent = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: this.target.workUrl,
          Entries: batch.map(({ id, failures, conflicts }, j) => ({
            Id: String(j),
            MessageBody: id,
            MessageGroupId: messageGroupId(id),
            MessageDeduplicationId: randomUUID(),
            ...messageAttributes(id, failures, this.target.signingSecret, conflicts),
          })),
        }),
      );
      if (sent.Failed && sent.Failed.length > 0) throw new Error(`delay pump: ${sent.Failed.length} sends failed`);
    }
  }

  private async pumpOnce(): Promise<number> {
    const out = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.delayUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 30,
      }),
    );
    const messages = out.Messages ?? [];
    if (messages.length === 0) return 0;
    await this.route(messages.map((m) => m.Body ?? ''));
    await this.client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: this.delayUrl,
        Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
    return messages.length;
  }
}
