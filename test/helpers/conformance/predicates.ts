// Conditions a scenario waits for. Each returns true, or a string saying what is still missing (shown when
// the wait times out).
import {
  controllerOf,
  findDeployment,
  findJob,
  findReplicaSet,
  isActive,
  isPodReady,
  newReplicaSetOf,
  podsOfDeployment,
  podsOwnedBy,
  replicaSetsOf,
} from './model.js';
import type { Check, Snapshot } from './types.js';

/** kubectl rollout status' "successfully rolled out", plus: every pod of an old ReplicaSet is gone. */
export const deploymentComplete =
  (name: string) =>
  (s: Snapshot): Check => {
    const d = findDeployment(s, name);
    if (!d) return `deployment ${name} not found`;
    const want = d.spec.replicas ?? 1;
    const st = d.status ?? {};
    if ((st.observedGeneration ?? 0) < (d.metadata.generation ?? 0))
      return `observedGeneration ${st.observedGeneration} < generation ${d.metadata.generation}`;
    if (st.updatedReplicas !== want && !(want === 0 && !st.updatedReplicas))
      return `updatedReplicas ${st.updatedReplicas} != ${want}`;
    if ((st.replicas ?? 0) !== want) return `replicas ${st.replicas} != ${want}`;
    if ((st.availableReplicas ?? 0) !== want) return `availableReplicas ${st.availableReplicas} != ${want}`;
    const fresh = newReplicaSetOf(s, d);
    const old = podsOfDeployment(s, d).filter((p) => controllerOf(p.metadata)?.uid !== fresh?.metadata.uid);
    if (old.length > 0) return `${old.length} pods of old replica sets remain`;
    const pods = podsOwnedBy(s, fresh?.metadata.uid);
    if (pods.length !== want) return `${pods.length} pods of the new replica set, want ${want}`;
    return true;
  };

/** The ReplicaSet has exactly spec.replicas active pods, all ready, and its status says so. */
export const replicaSetSettled =
  (name: string) =>
  (s: Snapshot): Check => {
    const rs = findReplicaSet(s, name);
    if (!rs) return `replicaset ${name} not found`;
    const want = rs.spec.replicas ?? 1;
    const st = rs.status ?? {};
    if ((st.observedGeneration ?? 0) < (rs.metadata.generation ?? 0)) return `observedGeneration behind`;
    const pods = podsOwnedBy(s, rs.metadata.uid);
    if (pods.length !== want) return `${pods.length} pods, want ${want}`;
    if (!pods.every((p) => isActive(p) && isPodReady(p))) return 'not every pod is active and ready';
    if ((st.replicas ?? 0) !== want || (st.readyReplicas ?? 0) !== want || (st.availableReplicas ?? 0) !== want)
      return `status replicas/ready/available ${st.replicas}/${st.readyReplicas}/${st.availableReplicas}, want ${want}`;
    return true;
  };

/** Status counts of a ReplicaSet, for intermediate states (e.g. ready but not yet available). */
export const replicaSetStatus =
  (name: string, want: { replicas?: number; readyReplicas?: number; availableReplicas?: number; pods?: number }) =>
  (s: Snapshot): Check => {
    const rs = findReplicaSet(s, name);
    if (!rs) return `replicaset ${name} not found`;
    const st = rs.status ?? {};
    for (const k of ['replicas', 'readyReplicas', 'availableReplicas'] as const) {
      const w = want[k];
      if (w !== undefined && (st[k] ?? 0) !== w) return `${k} ${st[k] ?? 0}, want ${w}`;
    }
    if (want.pods !== undefined) {
      const n = podsOwnedBy(s, rs.metadata.uid).filter(isActive).length;
      if (n !== want.pods) return `${n} active pods, want ${want.pods}`;
    }
    return true;
  };

export const deploymentCondition =
  (name: string, type: string, status: string, reason?: string) =>
  (s: Snapshot): Check => {
    const d = findDeployment(s, name);
    const c = d?.status?.conditions?.find((x) => x.type === type);
    if (c?.status === status && (reason === undefined || c.reason === reason)) return true;
    return `condition ${type} is ${c ? `${c.status}/${c.reason}` : 'absent'}, want ${status}/${reason ?? '*'}`;
  };

/** Counts of a stuck or partial rollout: active pods per revision and the Deployment's observed generation. */
export const deploymentPods =
  (name: string, perRevision: Record<number, number>) =>
  (s: Snapshot): Check => {
    const d = findDeployment(s, name);
    if (!d) return `deployment ${name} not found`;
    if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) return 'observedGeneration behind';
    for (const rs of replicaSetsOf(s, d)) {
      const rev = Number(rs.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? '0');
      const want = perRevision[rev] ?? 0;
      const n = podsOwnedBy(s, rs.metadata.uid).filter(isActive).length;
      if (n !== want || (rs.spec.replicas ?? 1) !== want)
        return `revision ${rev}: ${n} pods, spec ${rs.spec.replicas}, want ${want}`;
    }
    return true;
  };

export const gone =
  (kind: 'Deployment' | 'ReplicaSet', name: string) =>
  (s: Snapshot): Check => {
    const list = kind === 'Deployment' ? s.deployments : s.replicaSets;
    if (list.some((o) => o.metadata.name === name)) return `${kind} ${name} still exists`;
    if (kind === 'Deployment' && s.replicaSets.length > 0) return `${s.replicaSets.length} replica sets remain`;
    return s.pods.length === 0 ? true : `${s.pods.length} pods remain`;
  };

/** Every pod of the namespace is active and ready, and there are n of them. */
export const podsReady =
  (n: number) =>
  (s: Snapshot): Check => {
    const ready = s.pods.filter((p) => isActive(p) && isPodReady(p)).length;
    return ready === n && s.pods.length === n ? true : `${ready}/${s.pods.length} pods ready, want ${n}`;
  };

/** A Job condition of this type and status (and reason), e.g. Complete True or Failed True BackoffLimitExceeded. */
export const jobCondition =
  (name: string, type: string, status: string, reason?: string) =>
  (s: Snapshot): Check => {
    const c = findJob(s, name)?.status?.conditions?.find((x) => x.type === type);
    if (c?.status === status && (reason === undefined || c.reason === reason)) return true;
    return `job ${name}: condition ${type} is ${c ? `${c.status}/${c.reason}` : 'absent'}, want ${status}/${reason ?? '*'}`;
  };

/** The Job has n pods Running (not terminating), and its status counts them active (and ready, when asked). */
export const jobRunning =
  (name: string, n: number) =>
  (s: Snapshot): Check => {
    const j = findJob(s, name);
    if (!j) return `job ${name} not found`;
    const running = podsOwnedBy(s, j.metadata.uid).filter((p) => isActive(p) && p.status?.phase === 'Running');
    if (running.length !== n) return `job ${name}: ${running.length} running pods, want ${n}`;
    if ((j.status?.active ?? 0) !== n) return `job ${name}: status.active ${j.status?.active ?? 0}, want ${n}`;
    return true;
  };

/** Status counters of a Job (only those given are checked; absent counts as 0). */
export const jobStatus =
  (name: string, want: { active?: number; succeeded?: number; failed?: number; ready?: number }) =>
  (s: Snapshot): Check => {
    const st = findJob(s, name)?.status;
    for (const k of ['active', 'succeeded', 'failed', 'ready'] as const) {
      const w = want[k];
      if (w !== undefined && (st?.[k] ?? 0) !== w) return `job ${name}: ${k} ${st?.[k] ?? 0}, want ${w}`;
    }
    return true;
  };

export const all =
  (...checks: ((s: Snapshot) => Check)[]) =>
  (s: Snapshot): Check => {
    for (const c of checks) {
      const r = c(s);
      if (r !== true) return r;
    }
    return true;
  };

/** The CronJob's Jobs: n of them (by its uid), `running` of them with a Running pod. */
export const cronJobJobs =
  (cronJob: string, n: number, running = 0) =>
  (s: Snapshot): Check => {
    const c = s.cronJobs?.find((x) => x.metadata.name === cronJob);
    if (!c) return `cronjob ${cronJob} not found`;
    const jobs = s.jobs.filter((j) => controllerOf(j.metadata)?.uid === c.metadata.uid);
    if (jobs.length !== n) return `cronjob ${cronJob}: ${jobs.length} jobs, want ${n}`;
    const withPod = jobs.filter((j) =>
      podsOwnedBy(s, j.metadata.uid).some((p) => isActive(p) && p.status?.phase === 'Running'),
    );
    return withPod.length >= running
      ? true
      : `cronjob ${cronJob}: ${withPod.length} jobs with a running pod, want ${running}`;
  };

/** status.active of the CronJob lists n Jobs. */
export const cronJobActive =
  (cronJob: string, n: number) =>
  (s: Snapshot): Check => {
    const c = s.cronJobs?.find((x) => x.metadata.name === cronJob);
    const active = c?.status?.active?.length ?? 0;
    return active === n ? true : `cronjob ${cronJob}: status.active has ${active}, want ${n}`;
  };

/**
 * The wall clock is past the CronJob's k-th run (k minutes after the minute it was created, for a schedule of
 * `* * * * *`) by `seconds`: a condition on the sample's time, so a wait for it has a deadline like any other.
 */
export const pastRun =
  (cronJob: string, k: number, seconds = 5) =>
  (s: Snapshot): Check => {
    const c = s.cronJobs?.find((x) => x.metadata.name === cronJob);
    const created = Date.parse(c?.metadata.creationTimestamp ?? '');
    if (Number.isNaN(created)) return `cronjob ${cronJob} not found`;
    const due = (Math.floor(created / 60_000) + k) * 60_000 + seconds * 1000;
    return s.at >= due ? true : `${Math.ceil((due - s.at) / 1000)} s until run ${k} + ${seconds} s`;
  };

/**
 * Between :05 and :45 of a minute: away from the runs of a `* * * * *` schedule, so both sides create or compare
 * within the same minute.
 */
export const midMinute =
  () =>
  (s: Snapshot): Check => {
    const second = new Date(s.at).getUTCSeconds();
    return second >= 5 && second <= 45 ? true : `second ${second} of the minute`;
  };

/** The CronJob's Jobs by state: how many have a True Complete and a True Failed condition. */
export const cronJobFinished =
  (cronJob: string, complete: number, failed: number) =>
  (s: Snapshot): Check => {
    const c = s.cronJobs?.find((x) => x.metadata.name === cronJob);
    if (!c) return `cronjob ${cronJob} not found`;
    const jobs = s.jobs.filter((j) => controllerOf(j.metadata)?.uid === c.metadata.uid);
    const has = (type: string) =>
      jobs.filter((j) => j.status?.conditions?.some((x) => x.type === type && x.status === 'True')).length;
    const [k, f] = [has('Complete'), has('Failed')];
    return k === complete && f === failed
      ? true
      : `cronjob ${cronJob}: ${k} complete, ${f} failed, want ${complete}, ${failed}`;
  };

/** status.lastScheduleTime is the k-th run (k minutes after the minute the CronJob was created). */
export const cronJobLastRun =
  (cronJob: string, k: number) =>
  (s: Snapshot): Check => {
    const c = s.cronJobs?.find((x) => x.metadata.name === cronJob);
    const created = Date.parse(c?.metadata.creationTimestamp ?? '');
    const last = Date.parse(c?.status?.lastScheduleTime ?? '');
    if (Number.isNaN(created)) return `cronjob ${cronJob} not found`;
    if (Number.isNaN(last)) return `cronjob ${cronJob}: no lastScheduleTime`;
    const run = Math.floor(last / 60_000) - Math.floor(created / 60_000);
    return run === k ? true : `cronjob ${cronJob}: last run ${run}, want ${k}`;
  };
