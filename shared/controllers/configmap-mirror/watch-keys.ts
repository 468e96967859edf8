// Event → keys for the example mirror controller: a ConfigMap annotated fleetq.dev/mirror-to is copied to the
// namespaces it names; each copy carries the label fleetq.dev/mirror-of=<namespace>.<name> of its source.
import type { KubeObject } from '../../kube/meta/object.js';
import type { KeyName, WatchEvent } from '../descriptor.js';
import { MIRROR_OF, MIRROR_TO } from './types.js';

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
export function mirrorSource(object: KubeObject): KeyName | undefined {
  const value = object.metadata?.labels?.[MIRROR_OF_LABEL];
  if (value === undefined) return undefined;
  const dot = value.indexOf('.');
  if (dot <= 0 || dot === value.length - 1) return undefined;
  return { namespace: value.slice(0, dot), name: value.slice(dot + 1) };
}

/**
 * The keys a ConfigMap event yields: its own when it is (or, by its previous version, was) a mirror source;
 * its source's when it is a copy.
 */
export function configMapKeys(event: WatchEvent): KeyName[] {
  const { object, previous } = event;
  const keys: KeyName[] = [];
  const namespace = object.metadata?.namespace;
  const name = object.metadata?.name;
  if (namespace !== undefined && name !== undefined && (hasMirrorTo(object) || hasMirrorTo(previous))) {
    keys.push({ namespace, name });
  }
  const source = mirrorSource(object);
  if (source !== undefined) keys.push(source);
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
