// Event → keys for the example mirror controller: a ConfigMap annotated fleetq.dev/mirror-to is copied to the
// namespaces it names; each copy carries the label fleetq.dev/mirror-of=<namespace>.<name> of its source.
import { MIRROR_OF, MIRROR_TO } from '../controllers/configmap-mirror/types.js';
import type { ReconcileKey } from '../kube/key.js';
import type { KubeObject } from './resources.js';

/** The controller's own names (one definition, in the controller's types). */
export const MIRROR_TO_ANNOTATION = MIRROR_TO;
export const MIRROR_OF_LABEL = MIRROR_OF;

export function hasMirrorTo(object: KubeObject | undefined): boolean {
  return object?.metadata?.annotations?.[MIRROR_TO_ANNOTATION] !== undefined;
}

/**
 * The source a mirror copy names: `<namespace>.<name>`, split at the first '.' (a namespace is a DNS label and
 * has no '.', a ConfigMap name may). Undefined when the label is absent or malformed.
 */
export function mirrorSource(object: KubeObject): { namespace: string; name: string } | undefined {
  const value = object.metadata?.labels?.[MIRROR_OF_LABEL];
  if (value === undefined) return undefined;
  const dot = value.indexOf('.');
  if (dot <= 0 || dot === value.length - 1) return undefined;
  return { namespace: value.slice(0, dot), name: value.slice(dot + 1) };
}

/** The keys a ConfigMap event yields: its own when it is (or was) a mirror source; its source's when it is a copy. */
export function configMapKeys(cluster: string, object: KubeObject, previous: KubeObject | undefined): ReconcileKey[] {
  const keys: ReconcileKey[] = [];
  const namespace = object.metadata?.namespace;
  const name = object.metadata?.name;
  if (namespace !== undefined && name !== undefined && (hasMirrorTo(object) || hasMirrorTo(previous))) {
    keys.push({ cluster, kind: 'ConfigMap', namespace, name });
  }
  const source = mirrorSource(object);
  if (source !== undefined) keys.push({ cluster, kind: 'ConfigMap', ...source });
  return keys;
}

/** What the forwarder keeps of a ConfigMap to know later that it was a mirror source; undefined when it is not. */
export function mirrorSourceView(object: KubeObject): KubeObject | undefined {
  if (!hasMirrorTo(object)) return undefined;
  const { namespace, name } = object.metadata ?? {};
  return {
    metadata: {
      namespace,
      name,
      annotations: { [MIRROR_TO_ANNOTATION]: object.metadata?.annotations?.[MIRROR_TO_ANNOTATION] ?? '' },
    },
  };
}
