import type { ConfigMap, Namespace } from '../../kube/api/objects.js';
import { TerminalError } from '../../kube/errors.js';
import type { ReconcileKey } from '../../kube/key.js';
import type { ClusterView } from '../../kube/view.js';
import { screenTargets } from './policy.js';
import { MIRROR_OF, mirrorLabelValue, targetNamespaces, type ObservedMirror } from './types.js';

const LABEL_VALUE_MAX = 63;

/**
 * Reads the source, its copies, and each target it may write: only the targets that pass `allowedNamespaces`
 * (and the name and system-namespace checks) are read at all.
 */
export async function observeMirror(
  view: ClusterView,
  key: ReconcileKey,
  allowedNamespaces: readonly string[],
): Promise<ObservedMirror> {
  const label = mirrorLabelValue(key.namespace, key.name);
  if (label.length > LABEL_VALUE_MAX) {
    throw new TerminalError('Invalid', `mirror source ${label} is longer than a label value (${LABEL_VALUE_MAX})`);
  }
  const [source, copies] = await Promise.all([
    view.get<ConfigMap>('ConfigMap', key.namespace, key.name),
    view.list<ConfigMap>('ConfigMap', undefined, { labelSelector: `${MIRROR_OF}=${label}` }),
  ]);
  const { targets: allowedTargets, refused } = screenTargets(targetNamespaces(source), allowedNamespaces);
  const targets = await Promise.all(
    allowedTargets.map(async (namespace) => {
      const [ns, existing] = await Promise.all([
        view.get<Namespace>('Namespace', '', namespace),
        view.get<ConfigMap>('ConfigMap', namespace, key.name),
      ]);
      return { namespace, ns, existing };
    }),
  );
  return { namespace: key.namespace, name: key.name, source, copies, targets, allowedNamespaces, refused };
}
