// The lower layer's copy of what the registered descriptors say about kinds: shared/kube/kinds-generated.ts,
// rendered from DESCRIPTORS by `npm run rbac:render` (infra/k8s/render.ts) beside the RBAC manifests. kube/ imports
// nothing above it, so it cannot read the descriptors; a generated file keeps its tables static (no registration
// order to get wrong), and a unit test (test/unit/controllers/descriptors.test.ts) refuses a stale one.
import type { DescriptorRegistry } from './descriptor-registry.js';

export const KINDS_GENERATED_FILE = 'shared/kube/kinds-generated.ts';

/** What kinds-generated.ts holds: the kinds' catalog and their own API resources. */
export function generatedKinds(registry: Pick<DescriptorRegistry, 'catalog' | 'ownResources'>): {
  catalog: DescriptorRegistry['catalog'];
  resources: DescriptorRegistry['ownResources'];
} {
  return { catalog: registry.catalog, resources: registry.ownResources };
}

/** The text of kinds-generated.ts. */
export function renderKinds(registry: Pick<DescriptorRegistry, 'catalog' | 'ownResources'>): string {
  const { catalog, resources } = generatedKinds(registry);
  return [
    '// Generated from the registered watch descriptors (shared/controllers/index.ts) by `npm run rbac:render`',
    '// (shared/controllers/kinds-render.ts); edit the descriptors, not this file. kube/kinds.ts and kube/resources.ts',
    '// read it: the kinds a cluster registry accepts, and the API resource of each kind that is one of its own.',
    '',
    '// prettier-ignore',
    `export const REGISTERED_KINDS = ${JSON.stringify(catalog, null, 2)} as const;`,
    '',
    '// prettier-ignore',
    `export const REGISTERED_RESOURCES = ${JSON.stringify(resources, null, 2)} as const;`,
    '',
  ].join('\n');
}
