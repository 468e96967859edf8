// The SQS dead-letter list: a standard queue of JSON {key, raw, reason, failures, at}. We write it ourselves
// (not an SQS RedrivePolicy) because we dead-letter on our own failure count and must store the last error.
// Reading is a peek: receive everything with a short visibility, then make it visible again at once.
// Limits: fauxqs has no ListDeadLetterSourceQueues and no message-move tasks, so redrive re-sends keys to the
// FIFO queue itself; two concurrent readers may each see only part of the list while the other holds it.
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { keyString, parseKey } from '../../kube/key.js';
import { rawKeyId } from '../queue-options.js';
import type { DeadLetter, RedriveOptions } from '../work-queue.js';

type Stored = { key: string | null; raw?: string; sig?: string; reason: string; failures: number; at: number };
type Peeked = { letter: DeadLetter; receiptHandle: string };

const PEEK_VISIBILITY_S = 30;
const MAX_ENTRIES = 10_000;

export class SqsDeadLetters {
  constructor(
    private readonly client: SQSClient,
    private readonly url: string,
  ) {}

  async park(
    id: string | null,
    raw: string | undefined,
    reason: string,
    failures: number,
    signature?: string,
  ): Promise<void> {
    const stored: Stored = {
      key: id,
      ...(raw === undefined ? {} : { raw }),
      ...(signature === undefined || signature === '' ? {} : { sig: signature }),
      reason,
      failures,
      at: Date.now(),
    };
    await this.client.send(new SendMessageCommand({ QueueUrl: this.url, MessageBody: JSON.stringify(stored) }));
  }

  async list(): Promise<DeadLetter[]> {
    const peeked = await this.receiveAll();
    await this.release(peeked.map((p) => p.receiptHandle));
    return peeked.map((p) => p.letter);
  }

  /**
   * Sends matching keyed letters back through `enqueue` (which signs with the current secret) and deletes them;
   * raw letters stay parked unless options.raw and their text is a valid key.
   */
  async redrive(
    match: ((d: DeadLetter) => boolean) | undefined,
    enqueue: (id: string) => Promise<void>,
    options?: RedriveOptions,
  ): Promise<number> {
    const peeked = await this.receiveAll();
    const keep: string[] = [];
    let moved = 0;
    for (const { letter, receiptHandle } of peeked) {
      const id = letter.key !== null ? keyString(letter.key) : options?.raw ? rawKeyId(letter.raw) : undefined;
      if (id === undefined || (match && !match(letter))) {
        keep.push(receiptHandle);
        continue;
      }
      await enqueue(id);
      await this.client.send(new DeleteMessageCommand({ QueueUrl: this.url, ReceiptHandle: receiptHandle }));
      moved++;
    }
    await this.release(keep);
    return moved;
  }

  private async receiveAll(): Promise<Peeked[]> {
    const out: Peeked[] = [];
    while (out.length < MAX_ENTRIES) {
      const got = await this.client.send(
        new ReceiveMessageCommand({
          QueueUrl: this.url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: PEEK_VISIBILITY_S,
        }),
      );
      const messages = got.Messages ?? [];
      if (messages.length === 0) break;
      for (const m of messages) out.push({ letter: toLetter(m.Body ?? ''), receiptHandle: m.ReceiptHandle ?? '' });
    }
    return out.sort((a, b) => a.letter.at - b.letter.at);
  }

  private async release(receiptHandles: string[]): Promise<void> {
    for (let i = 0; i < receiptHandles.length; i += 10) {
      const Entries = receiptHandles
        .slice(i, i + 10)
        .map((ReceiptHandle, j) => ({ Id: String(j), ReceiptHandle, VisibilityTimeout: 0 }));
      await this.client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: this.url, Entries }));
    }
  }
}

function toLetter(body: string): DeadLetter {
  try {
    const s = JSON.parse(body) as Stored;
    const base = { reason: String(s.reason), failures: Number(s.failures), at: Number(s.at) };
    if (typeof s.key === 'string') return { key: parseKey(s.key), ...base };
    return {
      key: null,
      raw: s.raw ?? '',
      ...(typeof s.sig === 'string' && s.sig !== '' && { signature: s.sig }),
      ...base,
    };
  } catch (err) {
    return { key: null, raw: body, reason: `unreadable dead letter: ${String(err)}`, failures: 0, at: 0 };
  }
}
