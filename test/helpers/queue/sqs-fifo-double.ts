// TEST DOUBLE — an in-process stand-in for the Amazon SQS API, used ONLY where the emulator cannot show the
// behaviour under test. fauxqs (the real emulator every other SQS test uses) returns at most one message per
// FIFO message group in one ReceiveMessage; real SQS returns as many messages of one group as it can
// (up to MaxNumberOfMessages), and a driver must cope with that. This double implements what the AWS docs say,
// just enough for the SqsQueue driver:
//   - "FIFO queue delivery logic in Amazon SQS", https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/FIFO-queues-understanding-logic.html
//     (receiving: SQS tries to return as many messages with the same message group ID as possible in one
//     call; you cannot receive more messages of that group until the received ones are deleted or visible
//     again; within a group, messages keep their FIFO order)
//   - "Why doesn't my Amazon SQS FIFO queue return all messages…", https://repost.aws/knowledge-center/sqs-fifo-messages-not-returned
//     (in-flight messages block their group; ChangeMessageVisibility extends or shortens an in-flight message)
//   - SendMessage: MessageGroupId and MessageDeduplicationId are at most 128 characters; a duplicate
//     deduplication id within 5 minutes is accepted and not stored.
//   - ChangeMessageVisibility: at most 43 200 s, and a message's total visibility from its receive may not
//     pass 12 h (InvalidParameterValue); a receipt handle that is not the latest, in-flight one is refused.
//   - DeleteMessage with an old receipt handle succeeds without deleting anything.
// Standard queues (the driver's delay and dead-letter queues) are modelled too: any visible message,
// DelaySeconds up to 900. It records every call so tests can check order and visibility values.
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import type { SqsQueueUrls } from '../../../shared/queue/sqs/sqs-setup.js';

type Stored = {
  readonly messageId: string;
  readonly body: string;
  readonly groupId: string | undefined;
  readonly attributes: Record<string, MessageAttributeValue>;
  readonly sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceiveAt: number | undefined;
  lastReceiveAt: number;
  receiptHandle: string | undefined;
};

type FakeQueue = {
  readonly url: string;
  readonly fifo: boolean;
  readonly visibilityS: number;
  messages: Stored[];
  readonly dedup: Map<string, number>;
};

export type Call = { readonly at: number; readonly command: string; readonly input: Record<string, unknown> };

function sqsError(name: string, message: string): Error {
  const err = new Error(message);
  err.name = name;
  return err;
}

export class SqsFifoDouble {
  readonly calls: Call[] = [];
  /** The most messages of one group returned by a single ReceiveMessage (to prove a test exercised it). */
  maxSameGroupPerReceive = 0;
  private readonly queues = new Map<string, FakeQueue>();

  /** A work FIFO queue, a delay queue and a dead-letter queue, like ensureSqsQueues makes. */
  createQueues(name = 'double', workVisibilityS = 30): SqsQueueUrls {
    return {
      work: this.createQueue(`${name}.fifo`, true, workVisibilityS),
      delay: this.createQueue(`${name}-delay`, false, 30),
      dead: this.createQueue(`${name}-dlq`, false, 30),
    };
  }

  createQueue(name: string, fifo: boolean, visibilityS: number): string {
    const url = `https://sqs.double.local/000000000000/${name}`;
    this.queues.set(url, { url, fifo, visibilityS, messages: [], dedup: new Map() });
    return url;
  }

  /** The double typed as the SDK client the driver takes (it only calls send() and destroy()). */
  asClient(): SQSClient {
    return this as unknown as SQSClient;
  }

  destroy(): void {}

  /** Every message still in a queue (visible, in flight or delayed). */
  messages(url: string): ReadonlyArray<Readonly<Stored>> {
    return this.queue(url).messages;
  }

  async send(command: { readonly input: unknown }): Promise<unknown> {
    const input = command.input as Record<string, unknown>;
    this.calls.push({ at: Date.now(), command: command.constructor.name, input });
    if (command instanceof SendMessageCommand) return this.sendMessage(command.input);
    if (command instanceof SendMessageBatchCommand) {
      const q = this.queue(command.input.QueueUrl);
      const Successful = (command.input.Entries ?? []).map((e) => ({
        Id: e.Id,
        ...this.sendMessage({ ...e, QueueUrl: q.url }),
      }));
      return { Successful, Failed: [] };
    }
    if (command instanceof ReceiveMessageCommand) return this.receive(command.input);
    if (command instanceof DeleteMessageCommand) {
      this.delete(this.queue(command.input.QueueUrl), command.input.ReceiptHandle ?? '');
      return {};
    }
    if (command instanceof DeleteMessageBatchCommand) {
      const q = this.queue(command.input.QueueUrl);
      for (const e of command.input.Entries ?? []) this.delete(q, e.ReceiptHandle ?? '');
      return { Successful: (command.input.Entries ?? []).map((e) => ({ Id: e.Id })), Failed: [] };
    }
    if (command instanceof ChangeMessageVisibilityCommand) {
      const { QueueUrl, ReceiptHandle, VisibilityTimeout } = command.input;
      this.changeVisibility(this.queue(QueueUrl), ReceiptHandle ?? '', VisibilityTimeout ?? 0);
      return {};
    }
    if (command instanceof ChangeMessageVisibilityBatchCommand) {
      const q = this.queue(command.input.QueueUrl);
      for (const e of command.input.Entries ?? [])
        this.changeVisibility(q, e.ReceiptHandle ?? '', e.VisibilityTimeout ?? 0);
      return { Successful: (command.input.Entries ?? []).map((e) => ({ Id: e.Id })), Failed: [] };
    }
    if (command instanceof GetQueueAttributesCommand) {
      const q = this.queue(command.input.QueueUrl);
      const now = Date.now();
      const visible = q.messages.filter((m) => m.visibleAt <= now);
      return {
        Attributes: {
          ApproximateNumberOfMessages: String(visible.filter((m) => m.receiptHandle === undefined || q.fifo).length),
          ApproximateNumberOfMessagesNotVisible: String(
            q.messages.filter((m) => m.receiptHandle && m.visibleAt > now).length,
          ),
          ApproximateNumberOfMessagesDelayed: String(
            q.messages.filter((m) => !m.receiptHandle && m.visibleAt > now).length,
          ),
        },
      };
    }
    throw new Error(`SqsFifoDouble: ${command.constructor.name} is not modelled`);
  }

  private queue(url: string | undefined): FakeQueue {
    const q = this.queues.get(url ?? '');
    if (!q) throw sqsError('QueueDoesNotExist', `The specified queue does not exist: ${url}`);
    return q;
  }

  private sendMessage(input: {
    QueueUrl?: string | undefined;
    MessageBody?: string | undefined;
    MessageGroupId?: string | undefined;
    MessageDeduplicationId?: string | undefined;
    DelaySeconds?: number | undefined;
    MessageAttributes?: Record<string, MessageAttributeValue> | undefined;
  }): { MessageId: string } {
    const q = this.queue(input.QueueUrl);
    const now = Date.now();
    if (q.fifo) {
      const group = input.MessageGroupId;
      const dedup = input.MessageDeduplicationId;
      if (!group) throw sqsError('MissingParameter', 'The request must contain the parameter MessageGroupId.');
      if (!dedup)
        throw sqsError(
          'InvalidParameterValue',
          'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
        );
      for (const [name, value] of [
        ['MessageGroupId', group],
        ['MessageDeduplicationId', dedup],
      ] as const) {
        if (value.length > 128) {
          throw sqsError(
            'InvalidParameterValue',
            `Value for parameter ${name} is invalid. Reason: ${name} can only include alphanumeric and punctuation characters. 1 to 128 in length.`,
          );
        }
      }
      if (input.DelaySeconds)
        throw sqsError('InvalidParameterValue', 'DelaySeconds is not supported per message on FIFO queues');
      const seen = q.dedup.get(dedup);
      if (seen !== undefined && now - seen < 300_000) return { MessageId: randomUUID() };
      q.dedup.set(dedup, now);
    } else if ((input.DelaySeconds ?? 0) > 900) {
      throw sqsError('InvalidParameterValue', 'DelaySeconds must be >= 0 and <= 900');
    }
    const messageId = randomUUID();
    q.messages.push({
      messageId,
      body: input.MessageBody ?? '',
      groupId: input.MessageGroupId,
      attributes: input.MessageAttributes ?? {},
      sentAt: now,
      visibleAt: now + (input.DelaySeconds ?? 0) * 1000,
      receiveCount: 0,
      firstReceiveAt: undefined,
      lastReceiveAt: 0,
      receiptHandle: undefined,
    });
    return { MessageId: messageId };
  }

  private async receive(input: {
    QueueUrl?: string | undefined;
    MaxNumberOfMessages?: number | undefined;
    VisibilityTimeout?: number | undefined;
    WaitTimeSeconds?: number | undefined;
    MessageAttributeNames?: string[] | undefined;
  }): Promise<{ Messages?: Message[] }> {
    const q = this.queue(input.QueueUrl);
    const waitUntil = Date.now() + (input.WaitTimeSeconds ?? 0) * 1000;
    for (;;) {
      const picked = this.pick(q, Math.min(10, input.MaxNumberOfMessages ?? 1));
      if (picked.length > 0 || Date.now() >= waitUntil) {
        const now = Date.now();
        const wantAttributes = (input.MessageAttributeNames ?? []).length > 0;
        const perGroup = new Map<string, number>();
        const Messages = picked.map((m): Message => {
          m.receiveCount++;
          m.firstReceiveAt ??= now;
          m.lastReceiveAt = now;
          m.receiptHandle = randomUUID();
          m.visibleAt = now + (input.VisibilityTimeout ?? q.visibilityS) * 1000;
          if (m.groupId !== undefined) perGroup.set(m.groupId, (perGroup.get(m.groupId) ?? 0) + 1);
          return {
            MessageId: m.messageId,
            ReceiptHandle: m.receiptHandle,
            Body: m.body,
            Attributes: {
              SentTimestamp: String(m.sentAt),
              ApproximateReceiveCount: String(m.receiveCount),
              ApproximateFirstReceiveTimestamp: String(m.firstReceiveAt),
              ...(m.groupId !== undefined && { MessageGroupId: m.groupId }),
            },
            ...(wantAttributes && Object.keys(m.attributes).length > 0 && { MessageAttributes: m.attributes }),
          };
        });
        for (const n of perGroup.values()) this.maxSameGroupPerReceive = Math.max(this.maxSameGroupPerReceive, n);
        return Messages.length > 0 ? { Messages } : {};
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** FIFO: whole groups in the order of their oldest message, as many of one group as fit, skipping locked groups. */
  private pick(q: FakeQueue, max: number): Stored[] {
    const now = Date.now();
    if (!q.fifo) return q.messages.filter((m) => m.visibleAt <= now).slice(0, max);
    const locked = new Set(q.messages.filter((m) => m.visibleAt > now).map((m) => m.groupId));
    const picked: Stored[] = [];
    const order: string[] = [];
    for (const m of q.messages) if (m.groupId !== undefined && !order.includes(m.groupId)) order.push(m.groupId);
    for (const group of order) {
      if (locked.has(group)) continue;
      for (const m of q.messages) {
        if (picked.length >= max) return picked;
        if (m.groupId === group) picked.push(m);
      }
    }
    return picked;
  }

  private delete(q: FakeQueue, receiptHandle: string): void {
    q.messages = q.messages.filter((m) => m.receiptHandle !== receiptHandle || receiptHandle === '');
  }

  private changeVisibility(q: FakeQueue, receiptHandle: string, seconds: number): void {
    const now = Date.now();
    const m = q.messages.find((x) => x.receiptHandle === receiptHandle && receiptHandle !== '');
    if (!m || m.visibleAt <= now) {
      throw sqsError('MessageNotInflight', 'The message referred to is not in flight.');
    }
    if (seconds < 0 || seconds > 43_200 || now + seconds * 1000 - m.lastReceiveAt > 43_200_000) {
      throw sqsError(
        'InvalidParameterValue',
        `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]`,
      );
    }
    m.visibleAt = now + seconds * 1000;
  }
}
