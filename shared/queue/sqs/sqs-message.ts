// What one SQS work message carries, and the limits real SQS puts on it (fauxqs does not enforce them):
// - body: the key string, always in full.
// - MessageGroupId: the key string while it fits SQS's 128 characters, else `h:` + sha256 hex of it
//   (deterministic, so one key always maps to one group and is never in flight twice).
// - MessageDeduplicationId: a fresh UUID per send: every add is its own message (a key-based id would drop
//   an add sent while a run is in progress: a lost update); duplicates are coalesced on receive.
// - message attributes: `fleetq-failures` (failures carried by a re-send: a retry hop through the delay
//   queue, or a message handed back unrun), `fleetq-conflicts` (consecutive conflict retries: a conflict
//   hops through the delay queue so that its receive is not counted as a failure) and, with a
//   signingSecret, `fleetq-signature` (HMAC over the key).
//
// A message's failure count is `fleetq-failures + ApproximateReceiveCount - 1`: every receive that did not
// end in a delete is a run that failed (retry keeps the message with ChangeMessageVisibility) or a lease that
// was lost. The driver never lets an unrun message become visible again (it extends buffered messages, and
// hands back unrun ones as a fresh copy carrying their count), so a receive that never ran is not a failure.
import { createHash } from 'node:crypto';
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { signKey, verifySignature, verifyingSecrets } from '../message-signing.js';

/** SQS limit on MessageGroupId and MessageDeduplicationId. */
export const MAX_GROUP_ID_LENGTH = 128;
export const FAILURES_ATTRIBUTE = 'fleetq-failures';
export const CONFLICTS_ATTRIBUTE = 'fleetq-conflicts';
export const SIGNATURE_ATTRIBUTE = 'fleetq-signature';

/** The FIFO group of a key string: itself when it fits, else a deterministic hash of it. */
export function messageGroupId(id: string): string {
  if (id.length <= MAX_GROUP_ID_LENGTH) return id;
  return `h:${createHash('sha256').update(id, 'utf8').digest('hex')}`;
}

/** The MessageAttributes field of a work message for `id` (absent when there is nothing to carry). */
export function messageAttributes(
  id: string,
  failures: number,
  signingSecret: string | undefined,
  conflicts = 0,
): { MessageAttributes?: Record<string, MessageAttributeValue> } {
  const attributes: Record<string, MessageAttributeValue> = {};
  if (failures > 0) attributes[FAILURES_ATTRIBUTE] = { DataType: 'Number', StringValue: String(failures) };
  if (conflicts > 0) attributes[CONFLICTS_ATTRIBUTE] = { DataType: 'Number', StringValue: String(conflicts) };
  if (signingSecret !== undefined) {
    attributes[SIGNATURE_ATTRIBUTE] = { DataType: 'String', StringValue: signKey(signingSecret, id) };
  }
  return Object.keys(attributes).length > 0 ? { MessageAttributes: attributes } : {};
}

/** Reads one string attribute from an SDK message (StringValue) or a Lambda record (stringValue). */
export type AttributeBag =
  | Readonly<Record<string, { readonly StringValue?: string | undefined; readonly stringValue?: string | undefined }>>
  | undefined;

export function attribute(bag: AttributeBag, name: string): string | undefined {
  const value = bag?.[name];
  return value?.StringValue ?? value?.stringValue ?? undefined;
}

/** Failures before this delivery: carried failures plus receives that did not end in a delete. */
export function deliveredFailures(bag: AttributeBag, approximateReceiveCount: string | undefined): number {
  const carried = Number(attribute(bag, FAILURES_ATTRIBUTE) ?? 0);
  const receives = Number(approximateReceiveCount ?? 1);
  return (
    (Number.isFinite(carried) && carried > 0 ? Math.floor(carried) : 0) +
    (Number.isFinite(receives) && receives > 1 ? receives - 1 : 0)
  );
}

/** Consecutive conflict retries carried by the message (0 when absent or not a positive number). */
export function deliveredConflicts(bag: AttributeBag): number {
  const carried = Number(attribute(bag, CONFLICTS_ATTRIBUTE) ?? 0);
  return Number.isFinite(carried) && carried > 0 ? Math.floor(carried) : 0;
}

/**
 * True when signing is off, or the body carries a signature made by the current secret or, in a rotation window,
 * the previous one.
 */
export function isSignedBy(
  keys: { readonly signingSecret?: string | undefined; readonly signingSecretPrevious?: string | undefined },
  body: string,
  signature: string | undefined,
): boolean {
  return keys.signingSecret === undefined || verifySignature(verifyingSecrets(keys), body, signature);
}
