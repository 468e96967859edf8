// A FleetRollout (fleetq.dev/v1alpha1, on the hub cluster) as read from the cluster: untrusted, so parsed with a
// schema that names the bad field. The spec's durations become milliseconds (Go duration strings, as Kubernetes
// APIs write them: 10m, 1h30m, 90s); int-or-percent fields keep which one they are. The status is the rollout's
// ledger (decisions/fleet-rollout-ledger.md), written by the planner (plan.ts) and, for approvals and retries,
// by `fleetq rollout`.
import { z } from 'zod';
import { parseDurationMs } from '../controllers/daemonset/unhealthy-nodes.js';
import { labelKeyProblem, labelValueProblem } from '../kube/registry.js';
import type { RolloutTargetKind } from './observation.js';

export const FLEET_ROLLOUT_API_VERSION = 'fleetq.dev/v1alpha1';
export const FLEET_ROLLOUT_KIND = 'FleetRollout';

/** The ledger keeps this many revisions (the current one and the last ones before it). */
export const LEDGER_REVISIONS_KEPT = 5;

/** A count, or a percent of some total (`25%`). */
export type IntOrPercent = { readonly count: number } | { readonly percent: number };

/** Clusters of the registry: all of `names` (when given) that carry every label of `matchLabels` (when given). */
export type ClusterSelector = {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly names?: readonly string[];
};

export type Wave = {
  readonly name: string;
  /** Absent: every selected cluster no earlier wave took (only the last wave may leave it out). */
  readonly clusters?: ClusterSelector;
  /** Clusters of this wave admitted and not yet done at once (a percent of the wave's clusters, rounded up, ≥1). */
  readonly maxConcurrency: IntOrPercent;
  /** How long each cluster of the wave stays available on the revision before it counts as succeeded. */
  readonly soakMs: number;
  /** Nothing in this wave is admitted until the wave is approved for the revision (status.approvals). */
  readonly approval: boolean;
};

export const ON_FAILURE = { Rollback: 'Rollback', Pause: 'Pause' } as const;
export type OnFailure = (typeof ON_FAILURE)[keyof typeof ON_FAILURE];

export type FleetRolloutSpec = {
  readonly target: { readonly kind: RolloutTargetKind; readonly namespace: string; readonly name: string };
  readonly clusters: ClusterSelector;
  readonly waves: readonly Wave[];
  /** Per cluster, from its admission: not available on the revision by then counts as failed. */
  readonly progressDeadlineMs: number;
  /** Failed clusters allowed (a percent of the selected clusters, rounded down); one more stops the rollout. */
  readonly maxFailedClusters: IntOrPercent;
  readonly onFailure: OnFailure;
  readonly paused: boolean;
};

export const VERDICT = { Succeeded: 'Succeeded', Failed: 'Failed', RolledBack: 'RolledBack' } as const;
export type Verdict = (typeof VERDICT)[keyof typeof VERDICT];

/** What became of one revision: it is rolled out, done, stopped (rolled back or halted), or replaced by a newer one. */
export const REVISION_PHASE = {
  Progressing: 'Progressing',
  Succeeded: 'Succeeded',
  RolledBack: 'RolledBack',
  Halted: 'Halted',
  Superseded: 'Superseded',
} as const;
export type RevisionPhase = (typeof REVISION_PHASE)[keyof typeof REVISION_PHASE];

/** The rollout as a whole, for `kubectl get` (status.phase). */
export const ROLLOUT_PHASE = {
  ...REVISION_PHASE,
  Idle: 'Idle',
  Paused: 'Paused',
  WaitingForApproval: 'WaitingForApproval',
} as const;
export type RolloutPhase = (typeof ROLLOUT_PHASE)[keyof typeof ROLLOUT_PHASE];

/** One cluster's record for one revision. Times are RFC 3339. */
export type ClusterRecord = {
  readonly cluster: string;
  /** The wave it belongs to, fixed when the revision started (or when it joined: the last wave). */
  readonly wave: string;
  readonly joinedAt?: string;
  readonly admittedAt?: string;
  /** What a rollback returns it to: the revision it ran before, as observed when it was admitted. */
  readonly previousRevision?: string;
  /** When the planner first saw the revision available there since it last was not (the soak counts from it). */
  readonly availableSince?: string;
  readonly verdict?: Verdict;
  readonly verdictAt?: string;
  readonly reason?: string;
  /** The failure signature and image that failed it (the same in two clusters stops the rollout). */
  readonly failure?: { readonly signature: string; readonly image: string };
  readonly failedAt?: string;
  /** The workload's observedGeneration the last verdict (or admission) was made on. */
  readonly observedGeneration?: number;
};

export type RevisionLedger = {
  readonly revision: string;
  /** 1, then one more for each `fleetq rollout retry` of the same revision. */
  readonly attempt: number;
  readonly startedAt: string;
  readonly phase: RevisionPhase;
  /** The wave being rolled out ('' when none is: done, stopped, or nothing to roll). */
  readonly wave: string;
  /** Set when the rollout stopped (past the failure budget, or one signature in two clusters): held everywhere. */
  readonly stoppedAt?: string;
  readonly stopReason?: string;
  readonly clusters: readonly ClusterRecord[];
  /** Clusters that left the selection (or the registry) while this revision rolled out. */
  readonly departed?: readonly { readonly cluster: string; readonly wave: string; readonly at: string }[];
};

/** An operator's approval of one wave for one revision (`fleetq rollout approve`). */
export type WaveApproval = { readonly revision: string; readonly wave: string; readonly at: string };

export type FleetRolloutStatus = {
  readonly observedGeneration?: number;
  readonly phase?: RolloutPhase;
  /** The current revision and wave, for printer columns. */
  readonly revision?: string;
  readonly wave?: string;
  readonly approvals?: readonly WaveApproval[];
  /** `fleetq rollout retry`: roll the stopped revision again, as a new attempt. Consumed by the planner. */
  readonly retry?: { readonly revision: string; readonly at: string };
  /** Oldest first; at most LEDGER_REVISIONS_KEPT. */
  readonly revisions?: readonly RevisionLedger[];
};

export type FleetRollout = {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly generation?: number;
  };
  readonly spec: FleetRolloutSpec;
  readonly status: FleetRolloutStatus;
};

export class FleetRolloutError extends Error {
  override name = 'FleetRolloutError';
}

// ---- the schema ----

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const PERCENT = /^(\d{1,3})%$/;

const durationSchema = z.string('must be a duration like 90s, 10m or 1h30m').transform((text, ctx) => {
  const ms = parseDurationMs(text);
  if (ms === null) {
    ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)} is not a duration like 90s, 10m or 1h30m` });
    return z.NEVER;
  }
  return ms;
});

const intOrPercentSchema = z
  .union([z.number(), z.string()], 'must be a count (2) or a percent (25%)')
  .transform((v, ctx): IntOrPercent => {
    if (typeof v === 'number') {
      if (Number.isInteger(v) && v >= 0) return { count: v };
      ctx.addIssue({ code: 'custom', message: `${v} is not a count (a whole number ≥ 0)` });
      return z.NEVER;
    }
    const m = PERCENT.exec(v);
    if (m?.[1] !== undefined && Number(m[1]) <= 100) return { percent: Number(m[1]) };
    ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not a count or a percent from 0% to 100%` });
    return z.NEVER;
  });

const matchLabelsSchema = z
  .record(z.string(), z.string('label values are strings'), 'must be a map of label keys to values')
  .superRefine((labels, ctx) => {
    for (const [key, value] of Object.entries(labels)) {
      const problem = labelKeyProblem(key) ?? labelValueProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, path: [key] });
    }
  });

const selectorSchema = z
  .object({
    matchLabels: matchLabelsSchema.optional(),
    names: z.array(z.string().regex(DNS_SUBDOMAIN, 'must be a cluster name')).optional(),
  })
  .strict();

const waveSchema = z
  .object({
    name: z.string().regex(DNS_LABEL, 'must be a DNS label (lowercase letters, digits, -; at most 63)'),
    clusters: selectorSchema.optional(),
    maxConcurrency: intOrPercentSchema.default({ count: 1 }),
    soak: durationSchema.default(0),
    approval: z.boolean('must be true or false').default(false),
  })
  .strict()
  .superRefine((w, ctx) => {
    if (
      ('count' in w.maxConcurrency && w.maxConcurrency.count === 0) ||
      ('percent' in w.maxConcurrency && w.maxConcurrency.percent === 0)
    )
      ctx.addIssue({
        code: 'custom',
        message: 'must admit at least one cluster (1 or more, or a percent above 0%)',
        path: ['maxConcurrency'],
      });
  });

const specSchema = z
  .object({
    target: z
      .object({
        kind: z.enum(['Deployment', 'StatefulSet', 'DaemonSet'], 'must be Deployment, StatefulSet or DaemonSet'),
        namespace: z.string().regex(DNS_LABEL, 'must be a namespace name'),
        name: z.string().regex(DNS_SUBDOMAIN, 'must be an object name').max(253),
      })
      .strict(),
    clusters: selectorSchema,
    waves: z.array(waveSchema).min(1, 'must list at least one wave'),
    progressDeadline: durationSchema.default(600_000),
    failureBudget: z
      .object({ maxFailedClusters: intOrPercentSchema.default({ count: 0 }) })
      .strict()
      .default({ maxFailedClusters: { count: 0 } }),
    onFailure: z.enum(['Rollback', 'Pause'], 'must be Rollback or Pause').default('Rollback'),
    paused: z.boolean('must be true or false').default(false),
  })
  .strict()
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    s.waves.forEach((w, i) => {
      if (seen.has(w.name))
        ctx.addIssue({ code: 'custom', message: `duplicate wave name ${w.name}`, path: ['waves', i, 'name'] });
      seen.add(w.name);
      if (w.clusters === undefined && i !== s.waves.length - 1)
        ctx.addIssue({
          code: 'custom',
          message: 'only the last wave may leave out clusters (it takes every selected cluster no earlier wave took)',
          path: ['waves', i, 'clusters'],
        });
    });
  });

const timeSchema = z.iso.datetime({ offset: true, error: 'must be an RFC 3339 time' });

const clusterRecordSchema = z.object({
  cluster: z.string(),
  wave: z.string(),
  joinedAt: timeSchema.optional(),
  admittedAt: timeSchema.optional(),
  previousRevision: z.string().optional(),
  availableSince: timeSchema.optional(),
  verdict: z.enum(['Succeeded', 'Failed', 'RolledBack']).optional(),
  verdictAt: timeSchema.optional(),
  reason: z.string().optional(),
  failure: z.object({ signature: z.string(), image: z.string() }).optional(),
  failedAt: timeSchema.optional(),
  observedGeneration: z.number().int().optional(),
});

const revisionLedgerSchema = z.object({
  revision: z.string().min(1),
  attempt: z.number().int().positive(),
  startedAt: timeSchema,
  phase: z.enum(['Progressing', 'Succeeded', 'RolledBack', 'Halted', 'Superseded']),
  wave: z.string(),
  stoppedAt: timeSchema.optional(),
  stopReason: z.string().optional(),
  clusters: z.array(clusterRecordSchema).superRefine((records, ctx) => {
    // One record per cluster: two would let one cluster be admitted twice for a revision.
    const seen = new Set<string>();
    records.forEach((r, i) => {
      if (seen.has(r.cluster))
        ctx.addIssue({ code: 'custom', message: `a second record of cluster ${r.cluster}`, path: [i, 'cluster'] });
      seen.add(r.cluster);
    });
  }),
  departed: z.array(z.object({ cluster: z.string(), wave: z.string(), at: timeSchema })).optional(),
});

const statusSchema = z.object({
  observedGeneration: z.number().int().optional(),
  phase: z
    .enum(['Progressing', 'Succeeded', 'RolledBack', 'Halted', 'Superseded', 'Idle', 'Paused', 'WaitingForApproval'])
    .optional(),
  revision: z.string().optional(),
  wave: z.string().optional(),
  approvals: z.array(z.object({ revision: z.string(), wave: z.string(), at: timeSchema })).optional(),
  retry: z.object({ revision: z.string(), at: timeSchema }).optional(),
  revisions: z.array(revisionLedgerSchema).optional(),
});

const objectSchema = z.object({
  apiVersion: z.literal(FLEET_ROLLOUT_API_VERSION, `must be ${FLEET_ROLLOUT_API_VERSION}`),
  kind: z.literal(FLEET_ROLLOUT_KIND, `must be ${FLEET_ROLLOUT_KIND}`),
  metadata: z.object({
    name: z.string().min(1),
    namespace: z.string().min(1),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
    generation: z.number().int().optional(),
  }),
  spec: specSchema,
  status: statusSchema.optional(),
});

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/**
 * The FleetRollout in `raw` (an object read from the hub cluster), or a FleetRolloutError naming every bad field
 * (`spec.waves[1].soak: "5 minutes" is not a duration like 90s, 10m or 1h30m`).
 */
export function parseFleetRollout(raw: unknown): FleetRollout {
  const parsed = objectSchema.safeParse(raw);
  if (!parsed.success) {
    const meta = (raw as { metadata?: { namespace?: unknown; name?: unknown } } | null)?.metadata;
    const name =
      typeof meta?.namespace === 'string' && typeof meta.name === 'string' ? ` ${meta.namespace}/${meta.name}` : '';
    const lines = parsed.error.issues.map((i) => `  ${formatPath(i.path)}: ${i.message}`);
    throw new FleetRolloutError(`invalid FleetRollout${name}\n${lines.join('\n')}`);
  }
  const { metadata, spec, status } = parsed.data;
  const { failureBudget, progressDeadline, ...rest } = spec;
  return {
    metadata,
    spec: {
      ...rest,
      progressDeadlineMs: progressDeadline,
      maxFailedClusters: failureBudget.maxFailedClusters,
      waves: spec.waves.map(({ soak, ...w }) => ({ ...w, soakMs: soak })),
    },
    status: status ?? {},
  };
}
