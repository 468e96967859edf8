// ClusterView by live reads from the apiserver. Reads without a resourceVersion are consistent reads,
// so a handler never acts on state older than its own last write (read-after-write holds without
// expectations bookkeeping).
import type { KubernetesObject, KubernetesListObject } from '@kubernetes/client-node';
import { isNotFound } from './errors.js';
import type { KubeRest } from './rest.js';
import { resourceOf, resourcePath } from './resources.js';
import type { ClusterView, ListOptions } from './view.js';

const PAGE = 500;

export class LiveClusterView implements ClusterView {
  constructor(private readonly rest: KubeRest) {}

  get cluster(): string {
    return this.rest.cluster;
  }

  async get<T extends KubernetesObject>(kind: string, namespace: string, name: string): Promise<T | null> {
    const info = resourceOf(kind);
    try {
      return withKind(await this.rest.request<T>('GET', resourcePath(info, namespace, name)), info.apiVersion, kind);
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async list<T extends KubernetesObject>(
    kind: string,
    namespace: string | undefined,
    options: ListOptions = {},
  ): Promise<T[]> {
    const info = resourceOf(kind);
    const items: T[] = [];
    let cont: string | undefined;
    do {
      const page = await this.rest.request<KubernetesListObject<T>>('GET', resourcePath(info, namespace), {
        query: {
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          limit: PAGE,
          continue: cont,
        },
      });
      for (const item of page.items) items.push(withKind(item, info.apiVersion, kind));
      cont = page.metadata?._continue;
    } while (cont);
    return items;
  }
}

/** List items come without apiVersion/kind; planners and the writer rely on them. */
function withKind<T extends KubernetesObject>(o: T, apiVersion: string, kind: string): T {
  return { ...o, apiVersion, kind };
}
