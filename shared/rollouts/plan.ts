// The wave planner of a FleetRollout: from the rollout (spec and its ledger in status), the registry's clusters,
// what was observed of the target in each selected cluster and `now`, it returns the new status and what changed
// (admit, freeze, roll back), what is held and why, and the rollout's Events. Pure: no I/O, no clock.
//
// The status write is the commit point: a cluster is admitted when its ledger record says so (decisions name the
// changes, for Events, logs and metrics). Planning again on the status it returned, with the same observations
// and `now`, changes nothing, so a handler killed before or after its write neither admits twice nor skips one.
// Why the ledger lives in status and its shape: docs/decisions/fleet-rollout-ledger.md.
import { isDeepStrictEqual } from 'node:util';
import {
  HOLD_REASON,
  ms,
  type Decision,
  type Entry,
  type HoldReason,
  type RolloutEvent,
  type Row,
} from './decisions.js';
import type { ClusterObservation } from './observation.js';
import { halt, repeatedSignature, rollBack } from './stop.js';
import {
  assignWaves,
  compare,
  concurrencyOf,
  failureBudgetOf,
  selectClusters,
  type RegistryCluster,
} from './select.js';
import {
  LEDGER_REVISIONS_KEPT,
  REVISION_PHASE,
  ROLLOUT_PHASE,
  VERDICT,
  type FleetRollout,
  type FleetRolloutStatus,
  type RevisionLedger,
  type RolloutPhase,
  type Wave,
} from './types.js';

export type { RegistryCluster } from './select.js';
export { HOLD_REASON, type Decision, type HoldReason, type RolloutEvent } from './decisions.js';

export type PlanInput = {
  readonly rollout: FleetRollout;
  readonly clusters: readonly RegistryCluster[];
  /** One per selected cluster; a selected cluster without one counts as unreachable. */
  readonly observations: readonly ClusterObservation[];
  readonly now: Date;
};

export type PlanResult = {
  readonly status: FleetRolloutStatus;
  /** The status differs from the rollout's: write it (before the Events). */
  readonly statusChanged: boolean;
  /** admit, freeze and rollback: what this pass changed; hold: every cluster not admitted, and why. */
  readonly decisions: readonly Decision[];
  readonly events: readonly RolloutEvent[];
  /** When to look again at the latest (a soak ends, a deadline passes); undefined: on the next change. */
  readonly requeueAfterMs?: number;
};

export function plan(input: PlanInput): PlanResult {
  const { rollout, now } = input;
  const { spec } = rollout;
  const status = rollout.status;
  const nowMs = now.getTime();
  const at = now.toISOString();
  const decisions: Decision[] = [];
  const events: RolloutEvent[] = [];
  const note = (type: RolloutEvent['type'], reason: string, message: string) => events.push({ type, reason, message });

  const selected = selectClusters(input.clusters, spec.clusters);
  const observed = new Map(input.observations.map((o) => [o.cluster, o]));
  const obs = (cluster: string): ClusterObservation =>
    observed.get(cluster) ?? {
      cluster,
      present: false,
      unreachable: true,
      revision: '',
      previousRevision: '',
      generation: 0,
      observedGeneration: 0,
      available: false,
    };
  const waveIndex = new Map(spec.waves.map((w, i) => [w.name, i]));
  const waveOf = (name: string): Wave | undefined => spec.waves[waveIndex.get(name) ?? -1];

  const ledger: Entry[] = (status.revisions ?? []).map((e) => ({
    ...e,
    clusters: e.clusters.map((c) => ({ ...c })),
    departed: [...(e.departed ?? [])],
  }));

  /** A fresh record per selected cluster, in its wave; one already available on the revision needs no admission. */
  const newRows = (revision: string, clusters: readonly RegistryCluster[], wave: (c: string) => string): Row[] =>
    clusters.map((c) => {
      const o = obs(c.name);
      const row: Row = { cluster: c.name, wave: wave(c.name) };
      if (isOn(o, revision) && o.available && o.failure === undefined) {
        Object.assign(row, {
          verdict: VERDICT.Succeeded,
          verdictAt: at,
          reason: 'AvailableBeforeRollout',
          observedGeneration: o.observedGeneration,
        });
      }
      return row;
    });
  const startEntry = (revision: string, attempt: number, reason: string): Entry => {
    const waves = assignWaves(selected, spec.waves);
    const entry: Entry = {
      revision,
      attempt,
      startedAt: at,
      phase: REVISION_PHASE.Progressing,
      wave: '',
      clusters: newRows(revision, selected, (c) => waves.get(c) ?? ''),
      departed: [],
    };
    ledger.push(entry);
    const sizes = spec.waves.map((w) => `${w.name} (${entry.clusters.filter((r) => r.wave === w.name).length})`);
    note(
      'Normal',
      reason,
      `revision ${revision}${attempt === 1 ? '' : ` attempt ${attempt}`}: ${entry.clusters.length} clusters in waves ${sizes.join(', ')}`,
    );
    return entry;
  };

  // A revision the target asks for somewhere that the ledger does not hold starts a new entry; the one it
  // replaces stops where it is. (One template, one revision: the most asked-for new one wins, then by name.) When
  // no cluster asks for the current revision any more but some ask for one the ledger holds (the template went
  // back), that one is rolled again, as a new attempt.
  const asked = new Map<string, number>();
  for (const c of selected) {
    const o = obs(c.name);
    if (o.present && o.unreachable !== true && o.revision !== '')
      asked.set(o.revision, (asked.get(o.revision) ?? 0) + 1);
  }
  const mostAsked = (revisions: [string, number][]) =>
    revisions.sort((a, b) => b[1] - a[1] || compare(a[0], b[0]))[0]?.[0];
  const latest = ledger[ledger.length - 1];
  const newRevision = mostAsked([...asked].filter(([r]) => !ledger.some((e) => e.revision === r)));
  const wentBack =
    newRevision === undefined && latest !== undefined && !asked.has(latest.revision)
      ? mostAsked([...asked])
      : undefined;
  const restart = newRevision ?? wentBack;
  if (restart !== undefined) {
    if (latest?.phase === REVISION_PHASE.Progressing) {
      latest.phase = REVISION_PHASE.Superseded;
      latest.wave = '';
    }
    const attempts = ledger.filter((e) => e.revision === restart).map((e) => e.attempt);
    startEntry(restart, Math.max(0, ...attempts) + 1, 'RolloutStarted');
  }

  // A retry rolls a stopped revision again as a new attempt; one that names anything else is dropped.
  const retry = status.retry;
  const last = ledger[ledger.length - 1];
  if (retry !== undefined) {
    if (last?.revision === retry.revision && last.stoppedAt !== undefined && ms(retry.at) >= ms(last.stoppedAt)) {
      startEntry(last.revision, last.attempt + 1, 'RolloutRetried');
    } else {
      note('Warning', 'RetryIgnored', `retry of revision ${retry.revision}: not the stopped current revision`);
    }
  }

  const entry = ledger[ledger.length - 1];
  if (entry === undefined) {
    return finish(rollout, { ...withoutRetry(status), phase: ROLLOUT_PHASE.Idle, revisions: [] }, decisions, events);
  }
  const revision = entry.revision;
  const stopped = () => entry.stoppedAt !== undefined;

  // Membership: a cluster that left is dropped and noted; one that joined goes to the last wave.
  const selectedNames = new Set(selected.map((c) => c.name));
  for (const row of entry.clusters.filter((r) => !selectedNames.has(r.cluster))) {
    entry.departed.push({ cluster: row.cluster, wave: row.wave, at });
    note('Normal', 'ClusterLeft', `${row.cluster} (wave ${row.wave}) left the rollout of revision ${revision}`);
  }
  entry.clusters = entry.clusters.filter((r) => selectedNames.has(r.cluster));
  const lastWave = spec.waves[spec.waves.length - 1]?.name ?? '';
  // A wave the spec no longer has (renamed or removed mid-rollout): its clusters go on in the last wave.
  for (const row of entry.clusters.filter((r) => !waveIndex.has(r.wave))) {
    note('Normal', 'ClusterMoved', `${row.cluster}: wave ${row.wave} is gone from the spec; moved to wave ${lastWave}`);
    row.wave = lastWave;
  }
  const joined = selected.filter((c) => !entry.clusters.some((r) => r.cluster === c.name));
  for (const row of newRows(revision, joined, () => lastWave)) {
    entry.clusters.push({ ...row, joinedAt: at });
    note('Normal', 'ClusterJoined', `${row.cluster} joined the rollout of revision ${revision} in wave ${lastWave}`);
  }

  // Admitted clusters: available long enough succeeds; a failure signature or a passed deadline fails.
  const fail = (row: Row, reason: string, failure?: Row['failure']) => {
    Object.assign(row, { verdict: VERDICT.Failed, verdictAt: at, failedAt: at, reason });
    if (failure !== undefined) row.failure = failure;
    decisions.push({ type: 'freeze', cluster: row.cluster, revision, reason });
    note('Warning', 'ClusterFailed', `${row.cluster}: revision ${revision} failed: ${reason}`);
  };
  if (!stopped()) {
    for (const row of entry.clusters) {
      if (row.admittedAt === undefined || row.verdict !== undefined) continue;
      const o = obs(row.cluster);
      const deadlinePassed = nowMs >= ms(row.admittedAt) + spec.progressDeadlineMs;
      if (isOn(o, revision) && o.failure !== undefined) {
        row.observedGeneration = o.observedGeneration;
        const { signature, image, message } = o.failure;
        fail(row, `${signature}${image === '' ? '' : ` (${image})`}: ${message}`, { signature, image });
      } else if (isOn(o, revision) && o.available) {
        row.availableSince ??= at;
        row.observedGeneration = o.observedGeneration;
        if (nowMs - ms(row.availableSince) >= (waveOf(row.wave)?.soakMs ?? 0)) {
          Object.assign(row, { verdict: VERDICT.Succeeded, verdictAt: at, reason: 'AvailableAndSoaked' });
          note(
            'Normal',
            'ClusterSucceeded',
            `${row.cluster}: revision ${revision} available since ${row.availableSince}`,
          );
        }
      } else {
        if (o.unreachable !== true) delete row.availableSince; // the soak starts again when it is available again
        if (deadlinePassed) {
          const why =
            o.unreachable === true ? 'Unreachable' : !o.present ? 'TargetMissing' : 'ProgressDeadlineExceeded';
          const detail = o.reason === undefined ? '' : ` (${o.reason})`;
          fail(
            row,
            `${why}: not available ${spec.progressDeadlineMs / 1000}s after admission at ${row.admittedAt}${detail}`,
          );
        }
      }
    }
  }

  // Past the budget, or one failure signature on one image in two clusters: stop, and roll back or halt.
  if (!stopped()) {
    const failed = entry.clusters.filter((r) => r.failedAt !== undefined);
    const budget = failureBudgetOf(spec.maxFailedClusters, entry.clusters.length);
    const repeated = repeatedSignature(failed);
    if (failed.length > budget || repeated !== undefined) {
      entry.stoppedAt = at;
      entry.stopReason =
        repeated !== undefined
          ? `${repeated.signature}${repeated.image === '' ? '' : ` on ${repeated.image}`} in ${repeated.clusters.join(' and ')}`
          : `${failed.length} clusters failed (${failed.map((r) => r.cluster).join(', ')}), past the budget of ${budget}`;
      if (spec.onFailure === 'Rollback') rollBack(entry, spec.waves, obs, at, decisions, note);
      else halt(entry, at, decisions, note);
    }
  }

  // Admission: the first wave not finished is the current one; it admits up to its concurrency. A cluster not on
  // the revision does not hold its wave, except one whose target is there and asks for another revision while the
  // revision is younger than progressDeadline: the change reaches clusters at different times (each cluster's
  // GitOps sync, or a kubectl loop, on its own schedule), and a wave that went on without it would run a later
  // wave before it.
  const eligible = (r: Row) =>
    r.admittedAt === undefined && r.verdict === undefined && isAdmissible(obs(r.cluster), revision);
  const awaited = (r: Row) => asksElsewhere(obs(r.cluster), revision) && nowMs < awaitedUntil(entry, spec);
  const finished = (r: Row) => r.verdict !== undefined || (r.admittedAt === undefined && !eligible(r) && !awaited(r));
  const previousWave = entry.wave;
  let waitingForApproval = false;
  const current = stopped()
    ? undefined
    : spec.waves.find((w) => !entry.clusters.filter((r) => r.wave === w.name).every(finished));
  entry.wave = current?.name ?? '';
  if (current !== undefined) {
    const rows = entry.clusters.filter((r) => r.wave === current.name);
    const approved = (status.approvals ?? []).some((a) => a.revision === revision && a.wave === current.name);
    waitingForApproval = current.approval && !approved;
    let slots =
      concurrencyOf(current.maxConcurrency, rows.length) -
      rows.filter((r) => r.admittedAt !== undefined && r.verdict === undefined).length;
    const admissible = !spec.paused && !waitingForApproval;
    for (const row of rows.filter(eligible).sort((a, b) => compare(a.cluster, b.cluster))) {
      if (admissible && slots > 0) {
        slots -= 1;
        const o = obs(row.cluster);
        Object.assign(row, {
          admittedAt: at,
          previousRevision: o.previousRevision,
          observedGeneration: o.observedGeneration,
        });
        decisions.push({ type: 'admit', cluster: row.cluster, revision, wave: current.name });
        note('Normal', 'ClusterAdmitted', `${row.cluster}: revision ${revision} admitted in wave ${current.name}`);
      }
    }
    if (current.name !== previousWave) {
      if (waitingForApproval)
        note(
          'Normal',
          'WaitingForApproval',
          `wave ${current.name} of revision ${revision} waits for approval (fleetq rollout approve)`,
        );
      else note('Normal', 'WaveStarted', `wave ${current.name} of revision ${revision} started`);
    }
  }
  for (const row of entry.clusters) {
    if (row.admittedAt !== undefined || row.verdict !== undefined) continue;
    const reason: HoldReason = stopped()
      ? HOLD_REASON.RevisionHeld
      : !isAdmissible(obs(row.cluster), revision)
        ? HOLD_REASON.NotOnRevision
        : row.wave !== current?.name
          ? HOLD_REASON.WaitingForWave
          : spec.paused
            ? HOLD_REASON.Paused
            : waitingForApproval
              ? HOLD_REASON.WaitingForApproval
              : HOLD_REASON.WaitingForConcurrency;
    decisions.push({ type: 'hold', cluster: row.cluster, revision, reason });
  }

  if (!stopped()) {
    const done = current === undefined;
    if (done && entry.phase !== REVISION_PHASE.Succeeded)
      note('Normal', 'RolloutSucceeded', `revision ${revision} rolled out to every cluster it selects`);
    entry.phase = done ? REVISION_PHASE.Succeeded : REVISION_PHASE.Progressing;
  }

  const kept = ledger.slice(-LEDGER_REVISIONS_KEPT);
  const keptRevisions = new Set(kept.map((e) => e.revision));
  const phase: RolloutPhase =
    entry.phase !== REVISION_PHASE.Progressing
      ? entry.phase
      : spec.paused
        ? ROLLOUT_PHASE.Paused
        : waitingForApproval
          ? ROLLOUT_PHASE.WaitingForApproval
          : ROLLOUT_PHASE.Progressing;
  const next: FleetRolloutStatus = {
    ...withoutRetry(status),
    ...(rollout.metadata.generation !== undefined && { observedGeneration: rollout.metadata.generation }),
    phase,
    revision,
    wave: entry.wave,
    ...(status.approvals !== undefined && { approvals: status.approvals.filter((a) => keptRevisions.has(a.revision)) }),
    revisions: kept.map(toLedger),
  };
  return finish(rollout, next, decisions, events, stopped() ? undefined : nextLook(entry, spec, nowMs));
}

/** The target there asks for `revision` (it is present and was read). */
function isOn(o: ClusterObservation, revision: string): boolean {
  return o.present && o.unreachable !== true && o.revision === revision;
}

/** A cluster may be admitted for `revision`: it asks for it, or it cannot be read (then its deadline decides). */
function isAdmissible(o: ClusterObservation, revision: string): boolean {
  return o.unreachable === true || isOn(o, revision);
}

/**
 * The target there asks for another revision (it is present and was read): a cluster not yet admitted holds its
 * wave until it asks for this one or the revision is progressDeadline old (awaitedUntil); then it joins its wave's
 * admissions when it asks, as a cluster whose target is missing does.
 */
function asksElsewhere(o: ClusterObservation, revision: string): boolean {
  return o.present && o.unreachable !== true && o.revision !== revision;
}

function awaitedUntil(entry: Entry, spec: FleetRollout['spec']): number {
  return ms(entry.startedAt) + spec.progressDeadlineMs;
}

/**
 * The earliest time something changes by the clock alone: a soak ends, a deadline passes, or the clusters not yet
 * on the revision stop holding their waves.
 */
function nextLook(entry: Entry, spec: FleetRollout['spec'], nowMs: number): number | undefined {
  const waiting = entry.clusters.some((r) => r.admittedAt === undefined && r.verdict === undefined);
  const times = entry.clusters.flatMap((r) => {
    if (r.admittedAt === undefined || r.verdict !== undefined) return [];
    const soak = spec.waves.find((w) => w.name === r.wave)?.soakMs ?? 0;
    return r.availableSince !== undefined
      ? [ms(r.availableSince) + soak, ms(r.admittedAt) + spec.progressDeadlineMs]
      : [ms(r.admittedAt) + spec.progressDeadlineMs];
  });
  if (waiting) times.push(awaitedUntil(entry, spec));
  const future = times.filter((t) => t > nowMs);
  return future.length === 0 ? undefined : Math.min(...future) - nowMs;
}

function toLedger(e: Entry): RevisionLedger {
  const { departed, clusters, ...rest } = e;
  return { ...rest, clusters: clusters.map((c) => ({ ...c })), ...(departed.length > 0 && { departed }) };
}

function withoutRetry(status: FleetRolloutStatus): FleetRolloutStatus {
  const { retry: _retry, ...rest } = status;
  return rest;
}

function finish(
  rollout: FleetRollout,
  status: FleetRolloutStatus,
  decisions: Decision[],
  events: RolloutEvent[],
  requeueAfterMs?: number,
): PlanResult {
  return {
    status,
    statusChanged: !isDeepStrictEqual(normalize(status), normalize(rollout.status)),
    decisions,
    events,
    ...(requeueAfterMs !== undefined && { requeueAfterMs }),
  };
}

/** The status as it is stored (JSON: no undefined members), for comparing. */
function normalize(status: FleetRolloutStatus): unknown {
  return JSON.parse(JSON.stringify(status)) as unknown;
}
