// Failure signatures in the pods of one revision: what makes a fleet rollout fail a cluster before its deadline.
// The caller passes only the pods of the new revision (health.ts picks them by controller and revision label), so a
// signature left on a pod of the previous revision never counts against the new one.
//
// Per container (init containers included), its state and last state as the kubelet reports them:
// - state.waiting.reason ImagePullBackOff, ErrImagePull, CrashLoopBackOff or CreateContainerConfigError;
// - state.terminated.reason or lastState.terminated.reason OOMKilled;
// per pod: ReadinessNeverPassed when the pod is Running, not being deleted, and its Ready condition has been False
// for longer than the threshold (since its lastTransitionTime; a pod without one is not judged).
//
// When several show, one is reported, the first of SIGNATURE_ORDER: the image cannot be pulled or the container
// cannot even be configured (nothing of the revision can run), then OOMKilled before CrashLoopBackOff (a container
// killed for memory loops too, and OOMKilled names the cause), then readiness. Within that signature, the image
// shown by the most pods (ties: the image's name in code-unit order); the pods are those showing it on that image,
// sorted, at most MAX_PODS.
import type { FailureSignature, RevisionFailure } from './observation.js';
import { isRecord, oneLine, recordOf, recordsOf, text, type Json } from './health-untrusted.js';

export const SIGNATURE_ORDER: readonly FailureSignature[] = [
  'ImagePullBackOff',
  'ErrImagePull',
  'CreateContainerConfigError',
  'OOMKilled',
  'CrashLoopBackOff',
  'ReadinessNeverPassed',
];

export const MAX_PODS = 10;

const WAITING: ReadonlySet<string> = new Set<FailureSignature>([
  'ImagePullBackOff',
  'ErrImagePull',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
]);

type Sighting = {
  readonly signature: FailureSignature;
  readonly pod: string;
  readonly container: string;
  readonly image: string;
  /** What the kubelet said (its state message), or how long the pod has not been Ready. */
  readonly detail: string;
};

export type SignatureOptions = {
  readonly now: Date;
  /** How long a running pod may stay not Ready before it counts as ReadinessNeverPassed. */
  readonly readinessThresholdMs: number;
};

/** The failure of the revision its pods show, if any (see the order above). */
export function revisionFailure(
  pods: readonly unknown[],
  revision: string,
  options: SignatureOptions,
): RevisionFailure | undefined {
  const sightings = pods.flatMap((pod) => sightingsOf(pod, options));
  for (const signature of SIGNATURE_ORDER) {
    const found = sightings.filter((s) => s.signature === signature);
    if (found.length === 0) continue;
    const image = mostShownImage(found);
    const shown = found.filter((s) => s.image === image).sort((a, b) => compare(a.pod, b.pod));
    const podNames = [...new Set(shown.map((s) => s.pod))];
    const first = shown[0]!;
    const where = image === '' ? `container "${first.container}"` : `container "${first.container}" (${image})`;
    const detail = first.detail === '' ? '' : `: ${first.detail}`;
    return {
      signature,
      image,
      pods: podNames.slice(0, MAX_PODS),
      message: `${signature} in ${podNames.length} pod(s) of revision ${revision}, ${where} of ${first.pod}${detail}`,
    };
  }
  return undefined;
}

/** Every signature one pod shows; none for a pod without a name (it cannot be listed). */
function sightingsOf(pod: unknown, options: SignatureOptions): Sighting[] {
  if (!isRecord(pod)) return [];
  const metadata = recordOf(pod.metadata);
  const name = text(metadata.name);
  if (name === '') return [];
  const spec = recordOf(pod.spec);
  const status = recordOf(pod.status);
  const images = specImages(spec);
  const statuses = [...recordsOf(status.initContainerStatuses), ...recordsOf(status.containerStatuses)];
  const out: Sighting[] = [];
  for (const cs of statuses) {
    const container = text(cs.name);
    const image = images.get(container) ?? '';
    const state = recordOf(cs.state);
    const waiting = recordOf(state.waiting);
    const waitingReason = text(waiting.reason);
    if (WAITING.has(waitingReason)) {
      const signature = waitingReason as FailureSignature;
      out.push({ signature, pod: name, container, image, detail: oneLine(waiting.message) });
    }
    const terminated = [recordOf(state.terminated), recordOf(recordOf(cs.lastState).terminated)];
    const oom = terminated.find((t) => t.reason === 'OOMKilled');
    if (oom) out.push({ signature: 'OOMKilled', pod: name, container, image, detail: oneLine(oom.message) });
  }
  const notReadyMs = notReadyForMs(metadata, status, options.now);
  if (notReadyMs !== undefined && notReadyMs > options.readinessThresholdMs) {
    const container = recordsOf(status.containerStatuses).find((cs) => cs.ready !== true);
    const containerName = container ? text(container.name) : '';
    out.push({
      signature: 'ReadinessNeverPassed',
      pod: name,
      container: containerName,
      image: images.get(containerName) ?? '',
      detail: `not Ready for ${Math.floor(notReadyMs / 1000)}s`,
    });
  }
  return out;
}

/** Container name → its image in the pod's spec (init containers too). */
function specImages(spec: Json): Map<string, string> {
  const images = new Map<string, string>();
  for (const c of [...recordsOf(spec.initContainers), ...recordsOf(spec.containers)]) {
    const name = text(c.name);
    if (name !== '' && !images.has(name)) images.set(name, text(c.image, 1024));
  }
  return images;
}

/** How long a running pod that is not being deleted has had Ready False; undefined otherwise. */
function notReadyForMs(metadata: Json, status: Json, now: Date): number | undefined {
  if (status.phase !== 'Running' || (metadata.deletionTimestamp !== undefined && metadata.deletionTimestamp !== null))
    return undefined;
  const ready = recordsOf(status.conditions).find((c) => c.type === 'Ready');
  if (!ready || ready.status !== 'False') return undefined;
  const since = typeof ready.lastTransitionTime === 'string' ? Date.parse(ready.lastTransitionTime) : NaN;
  return Number.isNaN(since) ? undefined : now.getTime() - since;
}

function mostShownImage(found: readonly Sighting[]): string {
  const pods = new Map<string, Set<string>>();
  for (const s of found) {
    const set = pods.get(s.image) ?? new Set<string>();
    set.add(s.pod);
    pods.set(s.image, set);
  }
  return [...pods.entries()].sort((a, b) => b[1].size - a[1].size || compare(a[0], b[0]))[0]![0];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
