// The pod a DaemonSet creates for one node (syncNodes): util.CreatePodTemplate (the default tolerations, the
// controller-revision-hash label and, when the DaemonSet carries the legacy annotation, pod-template-generation),
// then util.ReplaceDaemonSetPodNodeNameNodeAffinity: a required node-affinity term `metadata.name In [node]`
// replaces the template's required terms, so the default scheduler binds the pod to that node (no nodeName).
// RealPodControl.CreatePods adds generateName `<ds>-`, the controller reference, and the template's labels,
// annotations and finalizers (controller.GetPodFromTemplate).
import type { Affinity, DaemonSet, NodeSelector, Pod, PodSpec } from '../../kube/api/objects.js';
import { newControllerRef } from '../../kube/meta/controller-ref.js';
import { daemonPodTolerations } from './tolerations.js';
import {
  DS_API_VERSION,
  DS_KIND,
  REVISION_HASH_LABEL,
  TEMPLATE_GENERATION_ANNOTATION,
  TEMPLATE_GENERATION_LABEL,
} from './types.js';
import { jsonCopy } from '../common/json-copy.js';

/** util.GetTemplateGeneration: the legacy annotation, or undefined (absent or not an integer). */
export function templateGeneration(ds: DaemonSet): string | undefined {
  const value = ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return value !== undefined && /^[-+]?[0-9]+$/.test(value) ? String(BigInt(value)) : undefined;
}

/** util.IsPodUpdated: the pod carries the current hash, or the legacy template generation. */
export function isPodUpdated(pod: Pod, hash: string, generation: string | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  const hashMatches = hash !== '' && labels[REVISION_HASH_LABEL] === hash;
  const generationMatches = generation !== undefined && labels[TEMPLATE_GENERATION_LABEL] === generation;
  return hashMatches || generationMatches;
}

export function newDaemonPod(ds: DaemonSet, nodeName: string, hash: string): Pod {
  const meta = ds.spec?.template?.metadata;
  const spec: PodSpec = jsonCopy(ds.spec?.template?.spec ?? { containers: [] });
  spec.tolerations = daemonPodTolerations(spec);
  spec.affinity = pinnedAffinity(spec.affinity, nodeName);
  const generation = templateGeneration(ds);
  const labels: Record<string, string> = { ...meta?.labels };
  if (generation !== undefined) labels[TEMPLATE_GENERATION_LABEL] = generation;
  if (hash !== '') labels[REVISION_HASH_LABEL] = hash;
  const ref = newControllerRef({
    apiVersion: DS_API_VERSION,
    kind: DS_KIND,
    name: ds.metadata?.name ?? '',
    uid: ds.metadata?.uid ?? '',
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${ds.metadata?.name ?? ''}-`,
      namespace: ds.metadata?.namespace,
      labels,
      ...(meta?.annotations && { annotations: { ...meta.annotations } }),
      ...(meta?.finalizers && { finalizers: [...meta.finalizers] }),
      ownerReferences: [ref],
    },
    spec,
  };
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become the one term pinning `nodeName`. */
export function pinnedAffinity(affinity: Affinity | undefined, nodeName: string): Affinity {
  const pinned: NodeSelector = {
    nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }],
  };
  if (affinity === undefined) return { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: pinned } };
  if (affinity.nodeAffinity === undefined) {
    return { ...affinity, nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: pinned } };
  }
  const required = affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  return {
    ...affinity,
    nodeAffinity: {
      ...affinity.nodeAffinity,
      requiredDuringSchedulingIgnoredDuringExecution:
        required === undefined ? pinned : { ...required, nodeSelectorTerms: pinned.nodeSelectorTerms },
    },
  };
}

/** util.GetTargetNodeName: spec.nodeName, else the `metadata.name In [one node]` field term; else undefined. */
export function targetNodeName(pod: Pod): string | undefined {
  if ((pod.spec?.nodeName ?? '') !== '') return pod.spec?.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const term of terms ?? []) {
    for (const r of term.matchFields ?? []) {
      if (r.key === 'metadata.name' && r.operator === 'In') {
        return (r.values ?? []).length === 1 ? r.values?.[0] : undefined;
      }
    }
  }
  return undefined;
}
