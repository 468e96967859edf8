// A cluster for the LeaderWorkerSet observe and plan tests: a ClusterView over a list of objects that logs each
// request, and the writes of a plan's actions applied to those objects (creates, the strategic merge patches
// plan.ts sends, deletes, status updates) with the events the writer would record, in its order.
import type { Action } from '../../../../shared/kube/actions.js';
import type { ResolvedEvent } from '../../../../shared/kube/events/types.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import type { ClusterView } from '../../../../shared/kube/view.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export class FakeCluster implements ClusterView {
  readonly cluster = 'c';
  readonly requests: string[] = [];
  /** What a fresh read finds instead (by `Kind/name`; null: gone). */
  readonly fresh = new Map<string, ApiObject | null>();

  constructor(public objects: ApiObject[]) {}

  async get<T extends ApiObject>(
    kind: string,
    _namespace: string,
    name: string,
    o?: { readonly fresh?: boolean },
  ): Promise<T | null> {
    this.requests.push(`GET ${kind} ${name}${o?.fresh === true ? ' (fresh)' : ''}`);
    const id = `${kind}/${name}`;
    if (o?.fresh === true && this.fresh.has(id)) return Promise.resolve(copy(this.fresh.get(id) ?? null) as T | null);
    const found = this.objects.find((x) => x.kind === kind && x.metadata?.name === name);
    return Promise.resolve(found === undefined ? null : (copy(found) as T));
  }

  async list<T extends ApiObject>(kind: string): Promise<T[]> {
    this.requests.push(`LIST ${kind}`);
    return Promise.resolve(copy(this.objects.filter((x) => x.kind === kind)) as T[]);
  }

  find(kind: string, name: string): ApiObject | undefined {
    return this.objects.find((x) => x.kind === kind && x.metadata?.name === name);
  }

  /**
   * The actions as the writer applies them (creates, then patches and deletes, then status; every write succeeds)
   * and the events it records, in the order of the actions.
   */
  apply(actions: readonly Action[]): ResolvedEvent[] {
    const events: ResolvedEvent[] = [];
    const byPhase = (types: string[]) => actions.filter((a) => types.includes(a.type));
    for (const a of [...byPhase(['create']), ...byPhase(['patch', 'delete']), ...byPhase(['updateStatus'])]) {
      this.write(a);
    }
    for (const a of actions) {
      if (a.type === 'event') events.push(resolved(a.event));
      else for (const e of a.events?.onSuccess ?? []) events.push(resolved(e));
    }
    return events;
  }

  private write(a: Action): void {
    switch (a.type) {
      case 'create':
        if (this.find(a.object.kind ?? '', a.object.metadata?.name ?? '') !== undefined) {
          throw new Error(`create ${a.object.kind} ${a.object.metadata?.name}: already exists`);
        }
        // The apiserver gives every object it creates a uid.
        this.objects.push({
          ...copy(a.object),
          metadata: { uid: `uid-${a.object.metadata?.name}`, ...copy(a.object.metadata) },
        });
        return;
      case 'patch': {
        const target = this.find(a.target.kind, a.target.name);
        if (target === undefined) throw new Error(`patch ${a.target.kind} ${a.target.name}: not found`);
        const uid = (a.patch.metadata as Json | undefined)?.uid;
        if (uid !== undefined && uid !== target.metadata?.uid) throw new Error(`patch ${a.target.name}: uid`);
        strategicMerge(target as Json, a.patch);
        return;
      }
      case 'delete':
        this.objects = this.objects.filter((o) => !(o.kind === a.target.kind && o.metadata?.name === a.target.name));
        return;
      case 'updateStatus': {
        const target = this.find(a.object.kind ?? '', a.object.metadata?.name ?? '') as Json | undefined;
        if (target === undefined) throw new Error(`status of ${a.object.metadata?.name}: not found`);
        target.status = copy((a.object as Json).status);
        return;
      }
      default:
        return;
    }
  }
}

function resolved(e: { type: string; reason: string; message: string }): ResolvedEvent {
  return e as ResolvedEvent;
}

/**
 * The strategic merge patch as far as plan.ts uses it: maps merged, `$patch: replace` replacing a map, an
 * ownerReferences list merged by uid, anything else replaced.
 */
export function strategicMerge(target: Json, patch: Json): void {
  for (const [k, v] of Object.entries(patch)) {
    if (isObject(v) && v.$patch === 'replace') {
      const { $patch: _directive, ...rest } = v;
      target[k] = copy(rest);
    } else if (k === 'ownerReferences' && Array.isArray(v)) {
      const refs = Array.isArray(target[k]) ? (target[k] as Json[]) : [];
      for (const ref of v as Json[]) {
        const i = refs.findIndex((r) => r.uid === ref.uid);
        if (i >= 0) refs[i] = { ...refs[i], ...ref };
        else refs.push(copy(ref));
      }
      target[k] = refs;
    } else if (isObject(v) && isObject(target[k])) {
      strategicMerge(target[k] as Json, v);
    } else if (v === null) {
      delete target[k];
    } else {
      target[k] = copy(v);
    }
  }
}
