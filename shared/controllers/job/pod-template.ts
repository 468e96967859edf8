// The pod manageJob creates (CreatePodsWithGenerateName over GetPodFromTemplate): the template's labels,
// annotations and finalizers plus the tracking finalizer, the Job as controller (blockOwnerDeletion), the
// template's spec. The apiserver has already put job-name, controller-uid and their batch.kubernetes.io/ forms
// into the template's labels (the controller adds none). Indexed pods also get:
//   - the completion index as annotation and label (batch.kubernetes.io/job-completion-index);
//   - JOB_COMPLETION_INDEX in every container and init container that lacks it, from the label by the downward
//     API (fieldRef metadata.labels['batch.kubernetes.io/job-completion-index']);
//   - hostname <job>-<index> (the subdomain is the template's own), generateName <job>-<index>- (trimmed to 58).
import type { Container, Pod } from '../../kube/api/objects.js';
import { newControllerRef } from '../../kube/meta/controller-ref.js';
import {
  COMPLETION_INDEX_ENV,
  COMPLETION_INDEX_KEY,
  JOB_API_VERSION,
  JOB_KIND,
  JOB_TRACKING_FINALIZER,
  type Job,
} from './types.js';

/** names.MaxGeneratedNameLength: 63 less the 5 random characters. */
const MAX_GENERATED_NAME_LENGTH = 58;

/** `extraAnnotations`: the per-index failure counts of a backoffLimitPerIndex Job (per-index.ts). */
export function podFromTemplate(job: Job, index?: number, extraAnnotations: Record<string, string> = {}): Pod {
  const name = job.metadata.name ?? '';
  const meta = job.spec.template?.metadata;
  const spec = structuredClone(job.spec.template?.spec ?? { containers: [] });
  const labels: Record<string, string> = { ...meta?.labels };
  const annotations: Record<string, string> = { ...meta?.annotations };
  const finalizers = [...(meta?.finalizers ?? [])];
  if (!finalizers.includes(JOB_TRACKING_FINALIZER)) finalizers.push(JOB_TRACKING_FINALIZER);
  let generateName = `${name}-`; // getPodsPrefix: a Job's name (≤ 63) always makes a valid prefix
  if (index !== undefined) {
    for (const c of spec.initContainers ?? []) addIndexEnv(c);
    for (const c of spec.containers) addIndexEnv(c);
    annotations[COMPLETION_INDEX_KEY] = String(index);
    labels[COMPLETION_INDEX_KEY] = String(index);
    Object.assign(annotations, extraAnnotations);
    spec.hostname = `${name}-${index}`;
    generateName = generateNameWithIndex(name, index);
  }
  const ref = newControllerRef({ apiVersion: JOB_API_VERSION, kind: JOB_KIND, name, uid: job.metadata.uid ?? '' });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName,
      namespace: job.metadata.namespace,
      labels,
      ...(Object.keys(annotations).length > 0 && { annotations }),
      finalizers,
      ownerReferences: [ref],
    },
    spec,
  };
}

/** podGenerateNameWithIndex. */
export function generateNameWithIndex(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = jobName + suffix;
  if (prefix.length <= MAX_GENERATED_NAME_LENGTH) return prefix;
  return prefix.slice(0, MAX_GENERATED_NAME_LENGTH - suffix.length) + suffix;
}

function addIndexEnv(c: Container): void {
  if ((c.env ?? []).some((e) => e.name === COMPLETION_INDEX_ENV)) return;
  c.env = [
    ...(c.env ?? []),
    {
      name: COMPLETION_INDEX_ENV,
      valueFrom: { fieldRef: { fieldPath: `metadata.labels['${COMPLETION_INDEX_KEY}']` } },
    },
  ];
}
