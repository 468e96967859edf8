// What `fleetq ui` shows, as one JSON document (GET /api/status): the fleet status (status.ts: per cluster the
// forwarder holding its watch, depth, queue latency, in flight, backoff, dead letters, rates, last event), each registered
// cluster's health (cluster-health.ts), the first dead letters, and the FleetRollouts of the registry's hub cluster
// (fleet-rollouts.ts: one bounded LIST per snapshot; no hub, or one that does not answer, is said there). Every string in it came from a cluster, Redis or the queue and is untrusted: capped, control
// and bidi characters made visible (displayText), credentials redacted; the page inserts it as text only.
import { keyString } from '../../kube/key.js';
import { redactText } from '../../kube/redact-secrets.js';
import type { DeadLetter } from '../../queue/work-queue.js';
import type { FleetqConfig } from '../../runtime/config.js';
import { collectStatus, type ClusterStatus, type FleetStatus, type StatusOptions } from '../status.js';
import { displayText } from '../terminal-text.js';
import type { ClusterHealth, ClusterHealthProbe } from './cluster-health.js';
import { hubRolloutsOf, type HubRollouts, type UiRollouts } from './fleet-rollouts.js';

/** Dead letters listed on the page; the total is shown beside them (`fleetq dlq list` shows them all). */
export const DEAD_LETTERS_SHOWN = 50;

export type UiCluster = ClusterStatus & {
  /** In the registry the ui was given (false: a cluster only the queue names). */
  readonly registered: boolean;
  readonly health: ClusterHealth;
  /** The forwarder pool quarantined it: no member watches it (status.ts). */
  readonly quarantined: boolean;
};

export type UiDeadLetter = {
  /** `cluster/kind/namespace/name`, or null for a message that never was a key (then `raw` has its text). */
  readonly key: string | null;
  readonly raw: string | null;
  readonly reason: string;
  readonly failures: number;
  /** When it was parked (ISO). */
  readonly at: string;
  readonly ageMs: number;
};

export type UiSnapshot = {
  readonly at: string;
  /** How often the page asks again (ms). */
  readonly refreshMs: number;
  readonly queue: string;
  readonly driver: FleetStatus['driver'];
  readonly rateWindowMs: number | null;
  readonly clusters: readonly UiCluster[];
  readonly deadLetters: {
    readonly total: number | null;
    readonly shown: readonly UiDeadLetter[];
    /** Why the list was not read or could not be, when it was not. */
    readonly error?: string;
  };
  /** The hub cluster's FleetRollouts (fleet-rollouts.ts), or why there are none to show. */
  readonly rollouts: UiRollouts;
  readonly notes: readonly string[];
};

export type SnapshotSources = {
  readonly config: Parameters<typeof collectStatus>[0] & Pick<FleetqConfig, 'FLEETQ_QUEUE'>;
  readonly statusOptions: Omit<StatusOptions, 'now'>;
  /** The queue's dead letters (shared/replay/dead-letters.ts listDeadLetters, given by the command). */
  readonly deadLetters: () => Promise<readonly DeadLetter[]>;
  /** false: the list is not read (sqs: reading it hides it from other readers); the count comes from status. */
  readonly deadLettersListed: boolean;
  readonly health?: ClusterHealthProbe;
  /** The hub's FleetRollouts; by default those of the health probe's registry (none without one: no hub). */
  readonly rollouts?: Pick<HubRollouts, 'read'>;
  readonly refreshMs: number;
};

const text = (s: string, max: number): string => displayText(redactText(s), max);
const NOT_LISTED =
  'the ui lists the dead letters of the redis driver only (reading the SQS list hides it from other readers for a ' +
  'moment); fleetq dlq list shows them';
const NOT_PROBED: ClusterHealth = { state: 'unknown', detail: 'not in the registry' };

export async function collectSnapshot(src: SnapshotSources, now = Date.now()): Promise<UiSnapshot> {
  const registered = new Set(src.statusOptions.clusters ?? []);
  const rolloutReader = src.rollouts ?? hubRolloutsOf(src.health?.registry);
  const [status, health, letters, rollouts] = await Promise.all([
    collectStatus(src.config, { ...src.statusOptions, now }),
    src.health?.probeAll() ?? Promise.resolve(new Map<string, ClusterHealth>()),
    (src.deadLettersListed ? src.deadLetters() : Promise.reject(new Error(NOT_LISTED))).then(
      (all) => ({ all }),
      (err: unknown) => ({ all: null, error: text(err instanceof Error ? err.message : String(err), 500) }),
    ),
    rolloutReader.read(now),
  ]);
  const quarantined = new Set((status.quarantined ?? []).map((q) => q.cluster));
  const clusters = status.clusters.map((c): UiCluster => ({
    ...c,
    cluster: text(c.cluster, 120),
    forwarder: c.forwarder === null ? null : text(c.forwarder, 120),
    registered: registered.has(c.cluster),
    health: health.get(c.cluster) ?? NOT_PROBED,
    quarantined: quarantined.has(c.cluster),
  }));
  return {
    at: status.at,
    refreshMs: src.refreshMs,
    queue: text(status.queue, 200),
    driver: status.driver,
    rateWindowMs: status.rateWindowMs,
    clusters,
    deadLetters: {
      total: letters.all?.length ?? countedDeadLetters(status),
      shown: (letters.all ?? []).slice(0, DEAD_LETTERS_SHOWN).map((d) => deadLetterView(d, now)),
      ...('error' in letters && { error: letters.error }),
    },
    rollouts,
    notes: status.notes.map((n) => text(n, 1_000)),
  };
}

/** The dead letters status counted (SQS: the dead-letter queue's approximate count), null when it has none. */
function countedDeadLetters(status: FleetStatus): number | null {
  const counts = status.clusters.map((c) => c.deadLetters).filter((n) => n !== null);
  return counts.length === 0 ? null : counts.reduce((a, b) => a + b, 0);
}

function deadLetterView(d: DeadLetter, now: number): UiDeadLetter {
  return {
    key: d.key === null ? null : text(keyString(d.key), 600),
    raw: d.key === null ? text(d.raw ?? '', 300) : null,
    reason: text(d.reason, 500),
    failures: d.failures,
    at: new Date(d.at).toISOString(),
    ageMs: Math.max(0, now - d.at),
  };
}
