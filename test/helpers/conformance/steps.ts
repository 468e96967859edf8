// Runs one (non-compare) scenario step on one side. Pods are chosen the same way on both sides: by
// owner, readiness and image, oldest (or newest) first.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Side } from './client.js';
import { COMPLETION_INDEX, controllerOf, isActive, isPodReady, isTerminating } from './model.js';
import { daemonPodNode } from './daemonset.js';
import { replicaSetKey } from './replicaset.js';
import type { Sampler } from './sampler.js';
import type {
  Condition,
  CronJob,
  DaemonSet,
  Deployment,
  StatefulSet,
  Job,
  KubeJson,
  Pod,
  PodFilter,
  ReplicaSet,
  Snapshot,
  Step,
} from './types.js';
import { kubectlPath } from '../sandbox/clusters.js';

/** The annotations infra/sandbox/stages/pod-outcome.yaml acts on. */
const OUTCOME = 'fleetq.dev/sandbox-outcome';
const EXIT_CODE = 'fleetq.dev/sandbox-exit-code';

export const DEFAULT_WAIT_MS = Number(process.env.CONFORMANCE_WAIT_MS ?? 90_000);

const execFileP = promisify(execFile);

export type KubectlResult = { code: number; stdout: string; stderr: string };

/** Runs the sandbox kubectl against a side; never throws on a non-zero exit. */
export async function kubectlOn(side: Side, args: readonly string[], timeoutMs = 120_000): Promise<KubectlResult> {
  const full = ['--kubeconfig', side.state.kubeconfig, ...args.map((a) => a.replaceAll('{ns}', side.namespace))];
  try {
    const { stdout, stderr } = await execFileP(kubectlPath(), full, { timeout: timeoutMs });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string; message?: string };
    return {
      code: typeof e.code === 'number' ? e.code : -1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? e.message ?? '',
    };
  }
}

/** Exit code and output with the namespace normalized; stdout trimmed to its last line unless asked. */
function recordOf(
  r: KubectlResult,
  side: Side,
  lines: 'last' | 'all',
): { code: number; stdout: string; stderr: string } {
  const clean = (t: string): string => t.split(side.namespace).join('<ns>').trim();
  const out = clean(r.stdout).split('\n');
  return {
    code: r.code,
    stdout: lines === 'last' ? (out[out.length - 1] ?? '') : out.join('\n'),
    stderr: clean(r.stderr),
  };
}

export function selectPods(s: Snapshot, f: PodFilter): Pod[] {
  const keyByUid = new Map(s.replicaSets.map((rs) => [rs.metadata.uid, replicaSetKey(s, rs)]));
  const matches = s.pods.filter((p) => {
    if (!isActive(p) || isTerminating(p.metadata)) return false;
    if (f.owner !== undefined) {
      const o = controllerOf(p.metadata);
      const key = o ? (keyByUid.get(o.uid) ?? o.name) : 'orphan';
      if (key !== f.owner) return false;
    }
    if (f.ready !== undefined && isPodReady(p) !== f.ready) return false;
    if (f.phase !== undefined && p.status?.phase !== f.phase) return false;
    if (f.index !== undefined && p.metadata.labels?.[COMPLETION_INDEX] !== String(f.index)) return false;
    if (f.node !== undefined && daemonPodNode(p) !== f.node) return false;
    if (f.image !== undefined) {
      const containers = (p.spec.containers ?? []) as Array<{ image?: string }>;
      if (!containers.some((c) => c.image === f.image)) return false;
    }
    return true;
  });
  matches.sort(
    (a, b) =>
      (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
      (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
  if (f.pick === 'newest') matches.reverse();
  return matches.slice(0, f.count ?? 1);
}

function setReady(pod: Pod, ready: boolean): void {
  const now = new Date().toISOString();
  const status = (pod.status ??= {});
  const conditions: Condition[] = (status.conditions ??= []);
  for (const type of ['Ready', 'ContainersReady']) {
    const c = conditions.find((x) => x.type === type);
    const next = ready ? 'True' : 'False';
    if (c) {
      if (c.status !== next) c.lastTransitionTime = now;
      c.status = next;
      if (ready) delete c.reason;
      else c.reason = 'ConformanceTest';
    } else {
      conditions.push({ type, status: next, lastTransitionTime: now });
    }
  }
  for (const cs of status.containerStatuses ?? []) cs.ready = ready;
}

/** A kubelet's terminal status for a failed pod (the `failPods` step). */
function failedStatus(pod: Pod, step: { exitCode?: number; conditions?: readonly Condition[] }): void {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  setReady(pod, false);
  const status = (pod.status ??= {});
  const conditions = (status.conditions ??= []);
  for (const c of step.conditions ?? []) {
    const at = conditions.findIndex((x) => x.type === c.type);
    const next = { lastTransitionTime: now, ...c };
    if (at >= 0) conditions[at] = next;
    else conditions.push(next);
  }
  status.phase = 'Failed';
  const containers = (pod.spec.containers ?? []) as Array<{ name: string; image?: string }>;
  status.containerStatuses = containers.map((c) => ({
    name: c.name,
    image: c.image ?? '',
    imageID: '',
    ready: false,
    restartCount: 0,
    started: false,
    state: {
      terminated: { exitCode: step.exitCode ?? 1, reason: 'Error', startedAt: now, finishedAt: now },
    },
  }));
}

export async function runStep(
  step: Exclude<Step, { do: 'compare' } | { do: 'on' }>,
  side: Side,
  sampler: Sampler,
): Promise<string> {
  switch (step.do) {
    case 'create':
      for (const o of step.objects) await side.create(o);
      return `created ${step.objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`;
    case 'update':
      await side.update<Deployment & ReplicaSet>(step.kind, step.name, step.mutate);
      return `updated ${step.kind}/${step.name}`;
    case 'updateJob':
      await side.update<Job>('Job', step.name, step.mutate);
      return `updated Job/${step.name}`;
    case 'updateDaemonSet':
      await side.update<DaemonSet>('DaemonSet', step.name, step.mutate);
      return `updated DaemonSet/${step.name}`;
    case 'updateObject':
      await side.update<KubeJson>(step.kind, step.name, step.mutate);
      return `updated ${step.kind}/${step.name}`;
    case 'updateStatefulSet':
      await side.update<StatefulSet>('StatefulSet', step.name, step.mutate);
      return `updated StatefulSet/${step.name}`;
    case 'updateCronJob':
      await side.update<CronJob>('CronJob', step.name, step.mutate);
      return `updated CronJob/${step.name}`;
    case 'endPods': {
      // kwok's outcome stages act on Running pods only; a pod still Pending would keep its annotation unseen.
      const s = await sampler.next();
      const filter = { phase: 'Running', ...step.filter };
      const pods = selectPods(s, filter);
      if (pods.length < (filter.count ?? 1))
        throw new Error(`endPods: ${pods.length} pods match ${JSON.stringify(filter)}, want ${filter.count ?? 1}`);
      const annotations: Record<string, string> = {
        [OUTCOME]: step.outcome,
        ...(step.exitCode !== undefined && { [EXIT_CODE]: String(step.exitCode) }),
      };
      for (const p of pods)
        await side.update<Pod>('Pod', p.metadata.name ?? '', (x) => {
          x.metadata.annotations = { ...x.metadata.annotations, ...annotations };
        });
      return `endPods ${step.outcome} on ${pods.map((p) => p.metadata.name).join(', ')}`;
    }
    case 'failPods': {
      const s = await sampler.next();
      const filter = { phase: 'Running', ...step.filter };
      const pods = selectPods(s, filter);
      if (pods.length < (filter.count ?? 1))
        throw new Error(`failPods: ${pods.length} pods match ${JSON.stringify(filter)}, want ${filter.count ?? 1}`);
      for (const p of pods)
        await side.update<Pod>('Pod', p.metadata.name ?? '', (x) => failedStatus(x, step), 'status');
      return `failPods exit ${step.exitCode ?? 1} ${(step.conditions ?? []).map((c) => c.type).join(',')} on ${pods
        .map((p) => p.metadata.name)
        .join(', ')}`;
    }
    case 'scale':
      await side.update<Deployment & ReplicaSet>(step.kind, step.name, (o) => {
        o.spec.replicas = step.replicas;
      });
      return `scaled ${step.kind}/${step.name} to ${step.replicas}`;
    case 'kubectl': {
      const r = await kubectlOn(side, step.args);
      if (step.record !== undefined) side.recordings[step.record] = recordOf(r, side, step.lines ?? 'last');
      if (step.expectFailure !== undefined && (r.code === 0) === step.expectFailure)
        throw new Error(`kubectl ${step.args.join(' ')}: exit ${r.code}, stderr ${r.stderr.trim()}`);
      return `kubectl ${step.args.join(' ')} → exit ${r.code} ${r.stdout.trim()} ${r.stderr.trim()}`.trim();
    }
    case 'deletePods':
    case 'setPodsReady':
    case 'relabelPods': {
      const s = await sampler.next();
      const filter = step.do === 'setPodsReady' ? { ready: !step.ready, ...step.filter } : step.filter;
      const pods = selectPods(s, filter);
      if (pods.length < (filter.count ?? 1))
        throw new Error(`${step.do}: ${pods.length} pods match ${JSON.stringify(filter)}, want ${filter.count ?? 1}`);
      for (const p of pods) {
        const name = p.metadata.name ?? '';
        if (step.do === 'deletePods') await side.delete('Pod', name);
        else if (step.do === 'setPodsReady')
          await side.update<Pod>('Pod', name, (x) => setReady(x, step.ready), 'status');
        else
          await side.update<Pod>('Pod', name, (x) => {
            x.metadata.labels = { ...x.metadata.labels, ...step.labels };
          });
      }
      return `${step.do} on ${pods.length} pods`;
    }
    case 'delete':
      await side.delete(step.kind, step.name);
      return `deleted ${step.kind}/${step.name}`;
    case 'waitFor':
      await sampler.waitUntil(step.what, step.until, step.timeoutMs ?? DEFAULT_WAIT_MS);
      return `reached: ${step.what}`;
    case 'arm':
      sampler.tracker.arm(step.invariant);
      return `armed ${step.invariant.name}`;
    case 'disarm':
      sampler.tracker.disarm(step.invariant);
      return `disarmed ${step.invariant.name}`;
  }
}
