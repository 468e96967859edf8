// The previous version of the objects whose mapping depends on what changed (a descriptor's `remember`: Nodes
// for DaemonSets, mirror-source ConfigMaps for the mirror). Only the trimmed view the descriptor asks for is
// kept, and only for those resources.
import { DESCRIPTORS } from '../controllers/index.js';
import type { DescriptorRegistry } from '../controllers/descriptor-registry.js';
import type { KubeObject, Resource } from './resources.js';

export function isPreviousTracked(resource: Resource, descriptors: DescriptorRegistry = DESCRIPTORS): boolean {
  return descriptors.isRemembered(resource);
}

export class PreviousState {
  private readonly views = new Map<string, KubeObject>();

  constructor(private readonly descriptors: DescriptorRegistry = DESCRIPTORS) {}

  get(resource: Resource, object: KubeObject): KubeObject | undefined {
    return this.views.get(id(resource, object));
  }

  apply(resource: Resource, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void {
    if (!this.descriptors.isRemembered(resource)) return;
    const view = type === 'DELETED' ? undefined : this.descriptors.remember(resource, object);
    if (view === undefined) this.views.delete(id(resource, object));
    else this.views.set(id(resource, object), view);
  }

  replace(resource: Resource, objects: readonly KubeObject[]): void {
    if (!this.descriptors.isRemembered(resource)) return;
    for (const key of this.views.keys()) if (key.startsWith(`${resource}/`)) this.views.delete(key);
    for (const object of objects) this.apply(resource, 'ADDED', object);
  }

  /** The end of a list applied page by page: forget what `resource`'s list did not see (`namespace/name`). */
  sweep(resource: Resource, seen: ReadonlySet<string>): void {
    for (const key of this.views.keys()) {
      if (key.startsWith(`${resource}/`) && !seen.has(key.slice(resource.length + 1))) this.views.delete(key);
    }
  }
}

function id(resource: Resource, object: KubeObject): string {
  return `${resource}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}
