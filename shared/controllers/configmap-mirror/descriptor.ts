// The example ConfigMap mirror's watch descriptor: it reconciles annotated ConfigMaps (not every ConfigMap),
// wakes from its copies, and owns nothing (copies are labelled, not owner-referenced).
import type { WatchDescriptor } from '../descriptor.js';
import { configMapMirrorController } from './index.js';
import { configMapKeys, mirrorSourceView } from './watch-keys.js';

export const configMapMirrorDescriptor: WatchDescriptor = {
  kind: 'ConfigMap',
  for: {
    kind: 'ConfigMap',
    keys: configMapKeys,
    remember: mirrorSourceView,
    why: 'ConfigMap mirror: annotated sources and their labelled copies',
  },
  owns: [],
  watches: [],
  access: {
    reads: [
      {
        kind: 'ConfigMap',
        verbs: ['get', 'list'],
        why: 'ConfigMap mirror observe: the source and each copy by name, the copies by label (a query: always live)',
      },
      {
        kind: 'Namespace',
        verbs: ['get'],
        why: 'ConfigMap mirror observe: each target namespace exists (namespaces are not cached)',
      },
    ],
    writes: [
      {
        kind: 'ConfigMap',
        verbs: ['create', 'update', 'delete'],
        why: 'ConfigMap mirror: create, update (resourceVersion) and delete (uid) copies; it records no events',
      },
    ],
  },
  controller: (registry) => configMapMirrorController((cluster) => registry?.get(cluster)?.mirror),
};
