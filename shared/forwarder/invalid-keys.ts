// What the forwarder does with a key it cannot enqueue because the data it was made from is bad (an owner
// reference naming "Not A Name", a mirror label `a._b`, an object the mapping cannot read): log it with the
// offending object's identity, count it, record it as a dead letter with queue.parkInvalid, and go on. Each
// (object, key, reason) is logged and parked once per process (bounded memory); every occurrence is counted.
import { keyString, type ReconcileKey } from '../kube/key.js';
import type { WorkQueue } from '../queue/work-queue.js';
import type { Logger } from '../runtime/logger.js';
import type { InvalidKey } from './event-keys.js';
import type { ForwarderMetrics } from './metrics.js';
import { kindOfResource, type KubeObject, type Resource } from './resources.js';

/** How many parked (object, key, reason) triples are remembered to avoid parking them again. */
const REMEMBERED = 10_000;
/** Bound on each untrusted string copied into a dead letter or a log line. */
const MAX_FIELD = 512;

export type ObjectIdentity = { kind: string; namespace: string; name: string; uid: string };

export function objectIdentity(resource: Resource, object: KubeObject): ObjectIdentity {
  const m = object.metadata ?? {};
  return {
    kind: kindOfResource(resource),
    namespace: bounded(m.namespace),
    name: bounded(m.name),
    uid: bounded(m.uid),
  };
}

export class InvalidKeyRecorder {
  private readonly parked = new Set<string>();
  count = 0;

  constructor(
    private readonly cluster: string,
    private readonly queue: Pick<WorkQueue, 'parkInvalid'>,
    private readonly logger: Logger,
    private readonly metrics: ForwarderMetrics,
    private readonly onError: (operation: string, resource: string) => void,
  ) {}

  /** Keys eventKeys rejected for one object. Throws when the dead letter could not be written. */
  async record(resource: Resource, object: KubeObject, invalid: readonly InvalidKey[]): Promise<void> {
    for (const { key, reason } of invalid) await this.park(resource, objectIdentity(resource, object), reason, key);
  }

  /** An object whose mapping threw: nothing was enqueued for it. */
  async unmappable(resource: Resource, object: KubeObject, err: unknown): Promise<void> {
    const reason = `event mapping failed: ${bounded(err instanceof Error ? err.message : String(err))}`;
    await this.park(resource, objectIdentity(resource, object), reason, null);
  }

  /** A key the queue refused as malformed (a driver's own rule), with no object at hand. */
  async refused(key: ReconcileKey, reason: string): Promise<void> {
    await this.park('', { kind: key.kind, namespace: key.namespace, name: key.name, uid: '' }, reason, key);
  }

  private async park(
    resource: Resource | '',
    object: ObjectIdentity,
    reason: string,
    key: ReconcileKey | null,
  ): Promise<void> {
    this.count++;
    this.metrics.invalidKeys.inc({ cluster: this.cluster, resource });
    const raw = JSON.stringify({
      cluster: this.cluster,
      object,
      ...(key === null ? {} : { key: bounded(keyString(key)) }),
    });
    const seen = `${raw}\n${reason}`;
    if (this.parked.has(seen)) return;
    this.logger.warn('Invalid reconcile key skipped', {
      resource,
      ...object,
      reason,
      ...(key === null ? {} : { key: bounded(keyString(key)) }),
    });
    try {
      await this.queue.parkInvalid(raw, reason);
    } catch (err) {
      this.onError('park', resource);
      throw err;
    }
    if (this.parked.size >= REMEMBERED) this.parked.clear();
    this.parked.add(seen);
  }
}

function bounded(value: unknown): string {
  const s = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  return s.length > MAX_FIELD ? `${s.slice(0, MAX_FIELD)}…` : s;
}
