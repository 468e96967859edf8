// A stand-in for the kubelet's one job that JobSet's e2e specs depend on: running their containers' programs to
// an exit. kwok runs no process, so a pod of those specs would stay Running forever. This reads each Running
// pod's container programs, decides when and how they would exit, and ends the pod then through fleetq's kwok
// stage (the fleetq.dev/sandbox-outcome annotation, infra/sandbox/stages/pod-outcome.yaml), the same way on
// both sides. It knows the programs of the fixtures in sigs.k8s.io/jobset's test/e2e, nothing else:
//   bash -c 'sleep N'                      exits 0 after N s
//   bash -c "echo '…'; sleep N"            exits 0 after N s (server-side apply fixture)
//   the RestartJobSet fixture's `if [[ "$JOB_INDEX" == "A" && "$RESTART_ATTEMPT" == "B" ]]; then …; exit X;
//     else …; exit Y; fi`, its two variables read from the pod's annotations through their fieldRefs
//   the DNS fixture: `ping -c 1` each of four hostnames until it answers, then `sleep N`. A name
//     `<host>.<subdomain>` answers, as cluster DNS serves it, once a pod of the namespace has that
//     spec.hostname and spec.subdomain and an IP, and a headless Service named <subdomain> selects it, with
//     the pod Ready or the Service publishing not-ready addresses.
// Any other program keeps running (as kwok's own stage does); so do pods whose restartPolicy is not Never.
import { CoreV1Api, type KubeConfig, type V1Container, type V1Pod, type V1Service } from '@kubernetes/client-node';

export const OUTCOME_ANNOTATION = 'fleetq.dev/sandbox-outcome';
export const EXIT_CODE_ANNOTATION = 'fleetq.dev/sandbox-exit-code';
/** Every pod a JobSet creates carries this label. */
const JOBSET_NAME_LABEL = 'jobset.sigs.k8s.io/jobset-name';

export type Program =
  | { readonly type: 'exit-after'; readonly seconds: number; readonly exitCode: number }
  | { readonly type: 'ping-then-sleep'; readonly hostnames: readonly string[]; readonly seconds: number };

const SLEEP = /^sleep (\d+)$/;
const ECHO_THEN_SLEEP = /^echo '[^']*'; sleep (\d+)$/;
const IF_JOB_INDEX_AND_RESTART =
  /^if \[\[ "\$(\w+)" == "([^"]*)" && "\$(\w+)" == "([^"]*)" \]\]; then echo "[^"]*"; exit (\d+); else echo "[^"]*"; exit (\d+); fi$/;
const PING_LOOP = /^for pod in \{((?:"[^"]+",?)+)\}\ndo\n[\s\S]*ping -c 1 \$pod[\s\S]*\ndone\s*\nsleep (\d+)$/;

/** The one script a container runs as `bash -c SCRIPT`, or undefined for any other command line. */
function bashScript(c: V1Container): string | undefined {
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  return argv.length === 3 && argv[0] === 'bash' && argv[1] === '-c' ? argv[2] : undefined;
}

/** The value of an environment variable taken from one of the pod's annotations (fieldRef), if it is one. */
function envFromAnnotation(pod: V1Pod, c: V1Container, name: string): string {
  const path = c.env?.find((e) => e.name === name)?.valueFrom?.fieldRef?.fieldPath;
  const key = path?.match(/^metadata\.annotations\['([^']+)'\]$/)?.[1];
  if (key === undefined) return c.env?.find((e) => e.name === name)?.value ?? '';
  return pod.metadata?.annotations?.[key] ?? '';
}

/** What a container's program does, if it is one of the fixtures' programs. */
export function containerProgram(pod: V1Pod, c: V1Container): Program | undefined {
  const script = bashScript(c);
  if (script === undefined) return undefined;
  const sleep = SLEEP.exec(script) ?? ECHO_THEN_SLEEP.exec(script);
  if (sleep) return { type: 'exit-after', seconds: Number(sleep[1]), exitCode: 0 };
  const branch = IF_JOB_INDEX_AND_RESTART.exec(script);
  if (branch) {
    const [, var1, want1, var2, want2, thenCode, elseCode] = branch as unknown as string[];
    const taken = envFromAnnotation(pod, c, var1!) === want1 && envFromAnnotation(pod, c, var2!) === want2;
    return { type: 'exit-after', seconds: 0, exitCode: Number(taken ? thenCode : elseCode) };
  }
  const ping = PING_LOOP.exec(script);
  if (ping) {
    const hostnames = [...ping[1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
    return { type: 'ping-then-sleep', hostnames, seconds: Number(ping[2]) };
  }
  return undefined;
}

const isReady = (p: V1Pod): boolean =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Whether `<host>.<subdomain>` resolves in the pod's namespace, by the rules of cluster DNS for pod hostnames. */
export function resolves(name: string, pods: readonly V1Pod[], services: readonly V1Service[]): boolean {
  const [host, subdomain, ...rest] = name.split('.');
  if (!host || !subdomain || rest.length > 0) return false;
  const svc = services.find((s) => s.metadata?.name === subdomain && s.spec?.clusterIP === 'None');
  const selector = svc?.spec?.selector;
  if (!svc || !selector) return false;
  return pods.some(
    (p) =>
      p.spec?.hostname === host &&
      p.spec?.subdomain === subdomain &&
      !p.metadata?.deletionTimestamp &&
      (p.status?.podIP ?? '') !== '' &&
      Object.entries(selector).every(([k, v]) => p.metadata?.labels?.[k] === v) &&
      (isReady(p) || svc.spec?.publishNotReadyAddresses === true),
  );
}

export type Ending = { readonly exitCode: number };

/**
 * When the pod's containers have all exited: the first non-zero exit code (or 0), once `now` has passed the
 * moment the slowest of them exits; undefined while any of them runs on (or runs a program not known here).
 * `runningSince` is when the pod was first seen Running; `resolvedSince` when every name a ping loop asks for
 * first resolved (undefined while they do not).
 */
export function podEnding(
  pod: V1Pod,
  now: number,
  runningSince: number,
  resolvedSince: (hostnames: readonly string[]) => number | undefined,
): Ending | undefined {
  if (pod.spec?.restartPolicy !== 'Never') return undefined;
  let exitCode = 0;
  for (const c of pod.spec.containers) {
    const program = containerProgram(pod, c);
    if (program === undefined) return undefined;
    const from = program.type === 'exit-after' ? runningSince : resolvedSince(program.hostnames);
    if (from === undefined || now < from + program.seconds * 1000) return undefined;
    const code = program.type === 'exit-after' ? program.exitCode : 0;
    if (exitCode === 0) exitCode = code;
  }
  return { exitCode };
}

export type PodRunner = { stop: () => Promise<void>; ended: () => number };

/**
 * Runs the stand-in on one cluster until stopped: every `intervalMs` it lists the JobSets' pods and the
 * Services, and annotates each pod whose programs have exited. Errors of one pass are logged and the next pass
 * tries again (the apiserver may refuse a patch of a pod deleted meanwhile).
 */
export function runJobSetPods(kc: KubeConfig, log: (msg: string) => void, intervalMs = 250): PodRunner {
  const core = kc.makeApiClient(CoreV1Api);
  const runningSince = new Map<string, number>();
  const resolvedSince = new Map<string, number>();
  let ended = 0;
  let stopped = false;

  const pass = async (): Promise<void> => {
    const pods = (await core.listPodForAllNamespaces({ labelSelector: JOBSET_NAME_LABEL })).items;
    const services = (await core.listServiceForAllNamespaces()).items;
    const now = Date.now();
    const live = new Set<string>();
    for (const pod of pods) {
      const uid = pod.metadata?.uid ?? '';
      live.add(uid);
      const ns = pod.metadata?.namespace ?? '';
      if (pod.status?.phase !== 'Running' || pod.metadata?.deletionTimestamp) continue;
      if (pod.metadata?.annotations?.[OUTCOME_ANNOTATION] !== undefined) continue;
      if (!runningSince.has(uid)) runningSince.set(uid, now);
      const inNs = pods.filter((p) => p.metadata?.namespace === ns);
      const svcs = services.filter((s) => s.metadata?.namespace === ns);
      const resolved = (hostnames: readonly string[]): number | undefined => {
        const key = `${uid}/${hostnames.join(',')}`;
        if (!hostnames.every((h) => resolves(h, inNs, svcs))) return resolvedSince.get(key);
        if (!resolvedSince.has(key)) resolvedSince.set(key, now);
        return resolvedSince.get(key);
      };
      const ending = podEnding(pod, now, runningSince.get(uid)!, resolved);
      if (!ending) continue;
      const outcome = ending.exitCode === 0 ? 'Succeeded' : 'Failed';
      await core.patchNamespacedPod({
        name: pod.metadata?.name ?? '',
        namespace: ns,
        body: [
          { op: 'test', path: '/metadata/uid', value: uid },
          {
            op: 'add',
            path: '/metadata/annotations',
            value: {
              ...pod.metadata?.annotations,
              [OUTCOME_ANNOTATION]: outcome,
              [EXIT_CODE_ANNOTATION]: String(ending.exitCode),
            },
          },
        ],
      });
      ended++;
      log(`${ns}/${pod.metadata?.name}: exited ${ending.exitCode} (${outcome})`);
    }
    for (const uid of runningSince.keys()) if (!live.has(uid)) runningSince.delete(uid);
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        await pass();
      } catch (err) {
        log(`pass failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
    ended: () => ended,
  };
}
