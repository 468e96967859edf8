// A cluster for the LeaderWorkerSet observe and plan tests: a ClusterView over a list of objects that logs each
// request, and the writes of a plan's actions applied to those objects (creates, the server-side applies plan.ts
// sends, deletes, status updates) with the events the writer would record, in its order.
//
// An apply as far as one field manager goes: the configuration's fields merged over the object (maps key by key,
// anything else replaced whole, lists included), and the map keys the same manager applied last time and no longer
// applies removed. The apiserver's merge of lists by key and its ownership across managers are the integration
// test's (test/integration/server-side-apply.test.ts).
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
  /** What each field manager applied last to each object (by `manager Kind/name`). */
  private readonly applied = new Map<string, Json>();

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
   * The actions as the writer applies them (creates, then applies and deletes, then status; every write succeeds)
   * and the events it records, in the order of the actions.
   */
  apply(actions: readonly Action[]): ResolvedEvent[] {
    const events: ResolvedEvent[] = [];
    const byPhase = (types: string[]) => actions.filter((a) => types.includes(a.type));
    for (const a of [...byPhase(['create']), ...byPhase(['apply', 'delete']), ...byPhase(['updateStatus'])]) {
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
      case 'apply': {
        const key = `${a.fieldManager} ${a.target.kind}/${a.target.name}`;
        const configuration = copy(a.configuration) as Json;
        const target = this.find(a.target.kind, a.target.name) as Json | undefined;
        if (target === undefined) {
          const metadata = configuration.metadata as Json;
          this.objects.push({ ...configuration, metadata: { uid: `uid-${a.target.name}`, ...metadata } } as ApiObject);
        } else {
          removeUnapplied(target, this.applied.get(key) ?? {}, configuration);
          mergeApplied(target, configuration);
        }
        this.applied.set(key, configuration);
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
      case 'event':
        return;
      default:
        throw new Error(`the fake cluster does not apply ${a.type} actions`);
    }
  }
}

function resolved(e: { type: string; reason: string; message: string }): ResolvedEvent {
  return e as ResolvedEvent;
}

/** The map keys `before` applied that `now` does not, removed from `target` (maps compared key by key). */
function removeUnapplied(target: Json, before: Json, now: Json): void {
  for (const [k, v] of Object.entries(before)) {
    if (!(k in now)) delete target[k];
    else if (isObject(v) && isObject(now[k]) && isObject(target[k])) removeUnapplied(target[k], v, now[k]);
  }
}

/** The configuration's fields set on `target`: maps merged key by key, anything else replaced. */
function mergeApplied(target: Json, configuration: Json): void {
  for (const [k, v] of Object.entries(configuration)) {
    if (isObject(v) && isObject(target[k])) mergeApplied(target[k], v);
    else target[k] = copy(v);
  }
}
