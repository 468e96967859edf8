// One simulated cluster: its objects in memory, one resourceVersion counter, the recent changes (what a watch
// resumes from; older is "compacted" and answered 410 Gone), the open watches, a kwok-like pod lifecycle and a
// minimal garbage collector. What it does as the apiserver does and what it leaves out: docs/cluster-sim.md.
import { randomBytes, randomUUID } from 'node:crypto';
import { badRequest, conflict, expired, invalid, notFound, SimApiError } from './api-error.js';
import { applyDefaults, dropOmittedZeros } from './defaults.js';
import { jsonPatch, mergePatch, PatchError, strategicMergePatch, type Json } from './patch.js';
import { apiVersionOf, SIM_RESOURCES, storeKey, type SimResource } from './resources.js';
import { fieldMatcher, labelMatcher, SelectorError, type Matcher } from './selectors.js';

export type Obj = Record<string, unknown> & { metadata: Meta };
type Meta = Record<string, unknown> & {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  ownerReferences?: Array<{ uid: string; kind?: string; name?: string; controller?: boolean }>;
  finalizers?: string[];
  deletionTimestamp?: string;
  labels?: Record<string, string>;
};

export type SimClusterOptions = {
  /** ms from a pod's create to its binding to the node (spec.nodeName, PodScheduled); default 20. */
  readonly podScheduleMs?: number;
  /** ms from a pod's binding to Running and Ready (kwok's fake kubelet); default 100. */
  readonly podReadyMs?: number;
  /** ms from a graceful delete of a bound pod (deletionTimestamp set) to its removal; default 20. */
  readonly podDeleteMs?: number;
  /** Changes kept for watches to resume from; a watch or continue token older than them gets 410. Default 10 000. */
  readonly historySize?: number;
  /** ms between BOOKMARK events on a watch that asked for them; default 10 000. */
  readonly bookmarkMs?: number;
  /** Nodes the cluster has (pods are bound round-robin); default 1. */
  readonly nodes?: number;
};

export type WatchEvent = { readonly type: string; readonly object: unknown };
export type WatchSink = { send(event: WatchEvent): void; end(): void };

type Change = { readonly rv: number; readonly key: string; readonly type: string; readonly object: Obj };
type Watcher = {
  readonly key: string;
  readonly namespace: string | undefined;
  readonly labels: Matcher;
  readonly fields: Matcher;
  readonly sink: WatchSink;
  timers: NodeJS.Timeout[];
};

export type ListResult = { items: Obj[]; resourceVersion: string; continueToken?: string };
export type ListQuery = {
  readonly labelSelector?: string | null;
  readonly fieldSelector?: string | null;
  readonly limit?: number;
  readonly continueToken?: string | null;
};
export type WatchQuery = {
  readonly resourceVersion?: string | null;
  readonly labelSelector?: string | null;
  readonly fieldSelector?: string | null;
  readonly allowWatchBookmarks?: boolean;
  readonly timeoutSeconds?: number;
};
export type DeleteOptions = {
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly propagationPolicy?: string;
  readonly gracePeriodSeconds?: number;
};

const FOREGROUND = 'foregroundDeletion';
const ORPHAN = 'orphan';

/** RFC 3339 at second precision, as metav1.Time marshals. */
export const timestamp = (ms = Date.now()): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

const nsName = (ns: string | undefined, name: string): string => `${ns ?? ''}/${name}`;
const clone = <T>(o: T): T => structuredClone(o);
const spec = (o: Obj): string => JSON.stringify(o.spec ?? null);
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export class SimCluster {
  private rv = 0;
  private readonly objects = new Map<string, Map<string, Obj>>();
  private readonly byUid = new Map<string, { res: SimResource; key: string }>();
  private readonly history: Change[] = [];
  private historyStart = 0;
  private readonly watchers = new Set<Watcher>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private gcScheduled = false;
  private nextNode = 0;
  private readonly o: Required<SimClusterOptions>;
  /** Told of every committed change, after the watches (a bench's clocks). */
  readonly observers = new Set<(type: 'ADDED' | 'MODIFIED' | 'DELETED', res: SimResource, o: Obj) => void>();
  /** Requests served, by verb (GET, LIST, WATCH, POST, PUT, PATCH, DELETE). */
  readonly requests: Record<string, number> = {};
  closed = false;

  constructor(
    readonly name: string,
    options: SimClusterOptions = {},
  ) {
    this.o = {
      podScheduleMs: options.podScheduleMs ?? 20,
      podReadyMs: options.podReadyMs ?? 100,
      podDeleteMs: options.podDeleteMs ?? 20,
      historySize: Math.max(1, options.historySize ?? 10_000),
      bookmarkMs: options.bookmarkMs ?? 10_000,
      nodes: Math.max(1, options.nodes ?? 1),
    };
    for (const res of SIM_RESOURCES) this.objects.set(storeKey(res), new Map());
    const ns = this.resource('', 'namespaces');
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
      this.create(ns, undefined, {
        metadata: { name },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      });
    const nodes = this.resource('', 'nodes');
    for (let i = 1; i <= this.o.nodes; i++) {
      this.create(nodes, undefined, {
        metadata: { name: `sim-node-${i}`, labels: { type: 'kwok', 'kubernetes.io/hostname': `sim-node-${i}` } },
        status: {
          conditions: [{ type: 'Ready', status: 'True' }],
          allocatable: { cpu: '32', memory: '256Gi', pods: '1000' },
        },
      });
    }
  }

  get resourceVersion(): string {
    return String(this.rv);
  }

  /** How many objects the cluster holds (all resources). */
  get size(): number {
    let n = 0;
    for (const m of this.objects.values()) n += m.size;
    return n;
  }

  get watchCount(): number {
    return this.watchers.size;
  }

  resource(group: string, plural: string): SimResource {
    const res = SIM_RESOURCES.find((r) => r.group === group && r.plural === plural);
    if (!res) throw new Error(`no resource ${group}/${plural}`);
    return res;
  }

  /** Forgets every change kept for watches: any watch or continue token from before now gets 410 Gone. */
  compact(): void {
    this.historyStart += this.history.length;
    this.history.length = 0;
  }

  // ---- reads

  get(res: SimResource, namespace: string | undefined, name: string): Obj {
    const o = this.find(res, namespace, name);
    if (!o) throw notFound(res.group, res.plural, res.kind, name);
    return o;
  }

  list(res: SimResource, namespace: string | undefined, q: ListQuery = {}): ListResult {
    let labels: Matcher, fields: Matcher;
    try {
      labels = labelMatcher(q.labelSelector);
      fields = fieldMatcher(q.fieldSelector);
    } catch (err) {
      throw badRequest(err instanceof SelectorError ? err.message : String(err));
    }
    let after = '';
    let listRv = this.rv;
    if (q.continueToken) {
      const token = decodeContinue(q.continueToken);
      if (token.rv < this.oldestResumable())
        throw expired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      after = token.after;
      listRv = token.rv;
    }
    const keys = [...this.store(res).keys()].filter((k) => k > after).sort();
    const items: Obj[] = [];
    const limit = q.limit !== undefined && q.limit > 0 ? q.limit : Infinity;
    let last = '';
    for (const k of keys) {
      const o = this.store(res).get(k) as Obj;
      if (namespace !== undefined && o.metadata.namespace !== namespace) continue;
      if (!labels(o) || !fields(o)) continue;
      if (items.length >= limit) {
        return { items, resourceVersion: String(listRv), continueToken: encodeContinue(listRv, last) };
      }
      items.push(o);
      last = k;
    }
    return { items, resourceVersion: String(listRv) };
  }

  // ---- writes

  create(res: SimResource, namespace: string | undefined, body: unknown, dryRun = false): Obj {
    const o = this.objectOf(res, body);
    const meta = o.metadata;
    if (res.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== namespace)
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      meta.namespace = namespace;
      if (!this.find(this.resource('', 'namespaces'), undefined, namespace ?? ''))
        throw notFound('', 'namespaces', 'Namespace', namespace ?? '');
    } else {
      delete meta.namespace;
    }
    if ((!meta.name || meta.name === '') && typeof meta.generateName === 'string') {
      meta.name = `${meta.generateName}${randomBytes(4).toString('hex').slice(0, 5)}`;
    }
    if (!meta.name)
      throw invalid(res.group, res.kind, '', 'metadata.name', 'Required value: name or generateName is required');
    if (meta.name.length > 253 || !DNS_SUBDOMAIN.test(meta.name))
      throw invalid(
        res.group,
        res.kind,
        meta.name,
        'metadata.name',
        'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters',
      );
    if (this.find(res, namespace, meta.name))
      throw new SimApiError(
        409,
        'AlreadyExists',
        `${res.group === '' ? res.plural : `${res.plural}.${res.group}`} "${meta.name}" already exists`,
        {
          name: meta.name,
          group: res.group,
          kind: res.plural,
        },
      );
    applyDefaults(res.kind, o);
    dropOmittedZeros(res.kind, o);
    this.validate(res, o, undefined);
    meta.uid = randomUUID();
    meta.creationTimestamp = timestamp();
    delete meta.deletionTimestamp;
    if (res.generation) meta.generation = 1;
    if (res.kind === 'Pod') o.status = { phase: 'Pending', qosClass: 'BestEffort' };
    else if (res.status && res.kind !== 'Namespace' && res.kind !== 'Node') delete o.status;
    if (dryRun) return o;
    this.commit(res, 'ADDED', o);
    if (res.kind === 'Pod') this.startPod(o);
    return o;
  }

  /** PUT of the object (subresource undefined) or of its status. */
  update(res: SimResource, namespace: string | undefined, name: string, body: unknown, subresource?: 'status'): Obj {
    const old = this.get(res, namespace, name);
    const o = this.objectOf(res, body);
    if (o.metadata.name !== name) throw badRequest('the name of the object does not match the name on the URL');
    return this.replace(res, old, o, subresource);
  }

  patch(
    res: SimResource,
    namespace: string | undefined,
    name: string,
    contentType: string,
    body: unknown,
    subresource?: 'status',
  ): Obj {
    const old = this.get(res, namespace, name);
    let patched: Json;
    try {
      switch (contentType) {
        case 'application/merge-patch+json':
          patched = mergePatch(old as unknown as Json, body as Json);
          break;
        case 'application/strategic-merge-patch+json':
          patched = strategicMergePatch(old as unknown as Json, body as Json);
          break;
        case 'application/json-patch+json':
          patched = jsonPatch(old as unknown as Json, body);
          break;
        default:
          throw new SimApiError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${contentType})`,
          );
      }
    } catch (err) {
      if (err instanceof PatchError) throw badRequest(err.message);
      throw err;
    }
    const o = this.objectOf(res, patched);
    // A patch without a resourceVersion applies to the current object (no precondition); one with it is checked.
    if ((body as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion === undefined)
      o.metadata.resourceVersion = old.metadata.resourceVersion;
    return this.replace(res, old, o, subresource);
  }

  delete(res: SimResource, namespace: string | undefined, name: string, opts: DeleteOptions = {}): Obj {
    const old = this.get(res, namespace, name);
    const pre = opts.preconditions ?? {};
    if (pre.uid !== undefined && pre.uid !== old.metadata.uid)
      throw conflict(
        res.group,
        res.plural,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== old.metadata.resourceVersion)
      throw conflict(
        res.group,
        res.plural,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
      );
    if (old.metadata.deletionTimestamp !== undefined && res.kind !== 'Pod') return old;
    if (res.kind === 'Namespace') return this.deleteNamespace(old);
    const policy = opts.propagationPolicy ?? (res.kind === 'Pod' ? 'Background' : 'Background');
    if (res.kind === 'Pod' && old.metadata.deletionTimestamp === undefined) {
      const bound = typeof (old.spec as { nodeName?: unknown } | undefined)?.nodeName === 'string';
      const grace =
        opts.gracePeriodSeconds ??
        Number((old.spec as { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds ?? 30);
      if (bound && grace > 0) {
        // The kubelet (here kwok) finishes a graceful delete: the pod is marked, then removed.
        const marked = clone(old);
        marked.metadata.deletionTimestamp = timestamp(Date.now() + grace * 1000);
        marked.metadata.deletionGracePeriodSeconds = grace;
        this.commit(res, 'MODIFIED', marked);
        this.after(this.o.podDeleteMs, () => {
          const now = this.find(res, namespace, name);
          if (now?.metadata.uid === old.metadata.uid && !now.metadata.finalizers?.length) this.remove(res, now);
        });
        return marked;
      }
    } else if (res.kind === 'Pod') {
      return old;
    }
    const finalizers = [...(old.metadata.finalizers ?? [])];
    if (policy === 'Foreground' && !finalizers.includes(FOREGROUND)) finalizers.push(FOREGROUND);
    if (policy === 'Orphan' && !finalizers.includes(ORPHAN)) finalizers.push(ORPHAN);
    if (finalizers.length > 0) {
      const marked = clone(old);
      marked.metadata.finalizers = finalizers;
      marked.metadata.deletionTimestamp = timestamp();
      marked.metadata.deletionGracePeriodSeconds = 0;
      this.commit(res, 'MODIFIED', marked);
      this.scheduleGc();
      return marked;
    }
    this.remove(res, old);
    return old;
  }

  // ---- scale subresource

  getScale(res: SimResource, namespace: string | undefined, name: string): Record<string, unknown> {
    const o = this.get(res, namespace, name);
    const s = (o.spec ?? {}) as { replicas?: number; selector?: { matchLabels?: Record<string, string> } };
    const st = (o.status ?? {}) as { replicas?: number };
    const selector = Object.entries(s.selector?.matchLabels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name,
        namespace,
        uid: o.metadata.uid,
        resourceVersion: o.metadata.resourceVersion,
        creationTimestamp: o.metadata.creationTimestamp,
      },
      spec: { replicas: s.replicas ?? 0 },
      status: { replicas: st.replicas ?? 0, selector },
    };
  }

  /** A PUT or merge/strategic PATCH of /scale: sets spec.replicas (with the Scale's resourceVersion as precondition). */
  setScale(
    res: SimResource,
    namespace: string | undefined,
    name: string,
    scale: unknown,
    contentType?: string,
  ): Record<string, unknown> {
    const current = this.getScale(res, namespace, name);
    const next =
      contentType === undefined
        ? (scale as Record<string, unknown>)
        : (this.patchValue(current as Json, contentType, scale) as Record<string, unknown>);
    const replicas = (next.spec as { replicas?: unknown } | undefined)?.replicas;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)
      throw invalid('autoscaling', 'Scale', name, 'spec.replicas', 'must be greater than or equal to 0');
    const old = this.get(res, namespace, name);
    const o = clone(old);
    (o.spec as Record<string, unknown>).replicas = replicas;
    const rv = (next.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
    if (contentType === undefined && rv !== undefined && rv !== '') o.metadata.resourceVersion = rv;
    this.replace(res, old, o, undefined);
    return this.getScale(res, namespace, name);
  }

  // ---- watch

  watch(res: SimResource, namespace: string | undefined, q: WatchQuery, sink: WatchSink): () => void {
    const labels = labelMatcher(q.labelSelector);
    const fields = fieldMatcher(q.fieldSelector);
    const w: Watcher = { key: storeKey(res), namespace, labels, fields, sink, timers: [] };
    const close = (): void => {
      if (!this.watchers.delete(w)) return;
      for (const t of w.timers) clearTimeout(t);
    };
    const from = q.resourceVersion ?? '';
    if (from === '' || from === '0') {
      for (const o of this.list(res, namespace, { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector })
        .items)
        sink.send({ type: 'ADDED', object: o });
    } else {
      const rv = Number(from);
      if (!Number.isInteger(rv) || rv < 0) throw badRequest(`invalid resource version: ${from}`);
      if (rv > this.rv) {
        sink.send({
          type: 'ERROR',
          object: new SimApiError(504, 'Timeout', `Too large resource version: ${rv}, current: ${this.rv}`, {
            causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          }).toStatus(),
        });
        sink.end();
        return () => undefined;
      }
      if (rv < this.oldestResumable()) {
        sink.send({
          type: 'ERROR',
          object: expired(`too old resource version: ${rv} (${this.oldestResumable()})`).toStatus(),
        });
        sink.end();
        return () => undefined;
      }
      for (const c of this.history)
        if (c.rv > rv && this.matches(w, c.key, c.object)) sink.send({ type: c.type, object: c.object });
    }
    this.watchers.add(w);
    if (q.allowWatchBookmarks && this.o.bookmarkMs > 0) {
      const bookmark = (): void => {
        sink.send({
          type: 'BOOKMARK',
          object: { kind: res.kind, apiVersion: apiVersionOf(res), metadata: { resourceVersion: String(this.rv) } },
        });
        w.timers[0] = setTimeout(bookmark, this.o.bookmarkMs).unref();
      };
      w.timers[0] = setTimeout(bookmark, this.o.bookmarkMs).unref();
    }
    if (q.timeoutSeconds !== undefined && q.timeoutSeconds > 0) {
      w.timers[1] = setTimeout(() => {
        close();
        sink.end();
      }, q.timeoutSeconds * 1000).unref();
    }
    return close;
  }

  /** Ends every watch and pending timer (the cluster goes away). */
  close(): void {
    this.closed = true;
    for (const w of [...this.watchers]) {
      for (const t of w.timers) clearTimeout(t);
      w.sink.end();
    }
    this.watchers.clear();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** Ends every open watch (as an apiserver restart would); clients watch again from their resourceVersion. */
  dropWatches(): void {
    for (const w of [...this.watchers]) {
      for (const t of w.timers) clearTimeout(t);
      w.sink.end();
    }
    this.watchers.clear();
  }

  // ---- internals

  private store(res: SimResource): Map<string, Obj> {
    return this.objects.get(storeKey(res)) as Map<string, Obj>;
  }

  private find(res: SimResource, namespace: string | undefined, name: string): Obj | undefined {
    return this.store(res).get(nsName(res.namespaced ? namespace : undefined, name));
  }

  private oldestResumable(): number {
    // A watch from rv sees every change after rv: it needs the change rv+1 kept (or none made since).
    const first = this.history[0]?.rv ?? this.rv + 1;
    return first - 1;
  }

  private objectOf(res: SimResource, body: unknown): Obj {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the body is not an object');
    const o = clone(body) as Obj;
    if (typeof o.metadata !== 'object' || o.metadata === null) o.metadata = {} as Meta;
    if (o.kind !== undefined && o.kind !== res.kind)
      throw badRequest(`the kind of the object (${String(o.kind)}) does not match the resource (${res.kind})`);
    o.kind = res.kind;
    o.apiVersion = apiVersionOf(res);
    return o;
  }

  private patchValue(current: Json, contentType: string, body: unknown): Json {
    try {
      if (contentType === 'application/json-patch+json') return jsonPatch(current, body);
      if (contentType === 'application/strategic-merge-patch+json') return strategicMergePatch(current, body as Json);
      return mergePatch(current, body as Json);
    } catch (err) {
      if (err instanceof PatchError) throw badRequest(err.message);
      throw err;
    }
  }

  /** The write path shared by PUT, PATCH and scale: preconditions, status/spec split, generation, no-op. */
  private replace(res: SimResource, old: Obj, o: Obj, subresource: 'status' | undefined): Obj {
    const name = old.metadata.name;
    const rv = o.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion)
      throw conflict(
        res.group,
        res.plural,
        name,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    if (o.metadata.uid !== undefined && o.metadata.uid !== '' && o.metadata.uid !== old.metadata.uid)
      throw conflict(
        res.group,
        res.plural,
        name,
        `Precondition failed: UID in precondition: ${o.metadata.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    if (res.namespaced && o.metadata.namespace !== undefined && o.metadata.namespace !== old.metadata.namespace)
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    let next: Obj;
    if (subresource === 'status') {
      // The status strategies of apps and core: spec and labels stay, status (and annotations) from the request.
      next = { ...clone(o), spec: clone(old.spec) } as Obj;
      next.metadata.labels = clone(old.metadata.labels);
      if (next.metadata.labels === undefined) delete next.metadata.labels;
    } else {
      next = clone(o);
      if (res.status) next.status = clone(old.status);
      if (next.status === undefined) delete next.status;
      applyDefaults(res.kind, next);
      if (res.kind === 'Pod') next.spec = { ...(old.spec as object), ...pickMutablePodSpec(next.spec) };
      this.validate(res, next, old);
    }
    for (const k of [
      'uid',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generation',
      'namespace',
      'name',
    ])
      if (old.metadata[k] === undefined) delete next.metadata[k];
      else next.metadata[k] = old.metadata[k];
    dropOmittedZeros(res.kind, next);
    if (res.generation && subresource !== 'status' && spec(next) !== spec(old))
      next.metadata.generation = Number(old.metadata.generation ?? 1) + 1;
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    if (JSON.stringify(next) === JSON.stringify(old)) return old;
    // Finalizers emptied on an object being deleted: it goes now.
    if (next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0) {
      this.remove(res, next);
      return next;
    }
    this.commit(res, 'MODIFIED', next);
    return next;
  }

  private validate(res: SimResource, o: Obj, old: Obj | undefined): void {
    const name = o.metadata.name;
    if (res.kind === 'Deployment' || res.kind === 'ReplicaSet') {
      const s = (o.spec ?? {}) as {
        selector?: { matchLabels?: Record<string, string> };
        template?: { metadata?: { labels?: Record<string, string> }; spec?: { containers?: unknown[] } };
        replicas?: number;
      };
      if (!s.selector) throw invalid(res.group, res.kind, name, 'spec.selector', 'Required value');
      const labels = s.template?.metadata?.labels ?? {};
      for (const [k, v] of Object.entries(s.selector.matchLabels ?? {}))
        if (labels[k] !== v)
          throw invalid(
            res.group,
            res.kind,
            name,
            'spec.template.metadata.labels',
            '`selector` does not match template `labels`',
          );
      if (!Array.isArray(s.template?.spec?.containers) || s.template.spec.containers.length === 0)
        throw invalid(res.group, res.kind, name, 'spec.template.spec.containers', 'Required value');
      if (typeof s.replicas === 'number' && s.replicas < 0)
        throw invalid(res.group, res.kind, name, 'spec.replicas', 'must be greater than or equal to 0');
      if (old && JSON.stringify((old.spec as { selector?: unknown }).selector) !== JSON.stringify(s.selector))
        throw invalid(res.group, res.kind, name, 'spec.selector', 'field is immutable');
    } else if (res.kind === 'Pod') {
      const s = (o.spec ?? {}) as { containers?: Array<{ image?: unknown }> };
      if (!Array.isArray(s.containers) || s.containers.length === 0)
        throw invalid(res.group, res.kind, name, 'spec.containers', 'Required value');
      if (s.containers.some((c) => typeof c.image !== 'string' || c.image === ''))
        throw invalid(res.group, res.kind, name, 'spec.containers[0].image', 'Required value');
    }
  }

  private commit(res: SimResource, type: 'ADDED' | 'MODIFIED' | 'DELETED', o: Obj): void {
    this.rv++;
    o.metadata.resourceVersion = String(this.rv);
    const key = storeKey(res);
    const at = nsName(res.namespaced ? o.metadata.namespace : undefined, o.metadata.name);
    if (type === 'DELETED') {
      this.store(res).delete(at);
      this.byUid.delete(o.metadata.uid);
    } else {
      this.store(res).set(at, o);
      this.byUid.set(o.metadata.uid, { res, key: at });
    }
    const change: Change = { rv: this.rv, key, type, object: o };
    this.history.push(change);
    if (this.history.length > this.o.historySize) {
      const drop = this.history.length - this.o.historySize;
      this.history.splice(0, drop);
      this.historyStart += drop;
    }
    for (const w of this.watchers) if (this.matches(w, key, o)) w.sink.send({ type, object: o });
    for (const f of this.observers) f(type, res, o);
    if (type !== 'ADDED' && (type === 'DELETED' || o.metadata.deletionTimestamp !== undefined)) this.scheduleGc();
  }

  private matches(w: Watcher, key: string, o: Obj): boolean {
    return (
      w.key === key && (w.namespace === undefined || o.metadata.namespace === w.namespace) && w.labels(o) && w.fields(o)
    );
  }

  private remove(res: SimResource, o: Obj): void {
    const gone = clone(o);
    this.commit(res, 'DELETED', gone);
  }

  private deleteNamespace(ns: Obj): Obj {
    // The namespace controller's work done at once: every object in it, then the namespace.
    for (const res of SIM_RESOURCES) {
      if (!res.namespaced) continue;
      for (const o of [...this.store(res).values()]) if (o.metadata.namespace === ns.metadata.name) this.remove(res, o);
    }
    this.remove(this.resource('', 'namespaces'), ns);
    return ns;
  }

  private after(ms: number, f: () => void): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) f();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  /** Some node's labels hold every key and value of the pod's nodeSelector. */
  private anyNodeMatches(selector: Record<string, string>): boolean {
    return [...this.store(this.resource('', 'nodes')).values()].some((n) =>
      Object.entries(selector).every(([k, v]) => n.metadata.labels?.[k] === v),
    );
  }

  /**
   * kwok-like: bound to a node after podScheduleMs, Running and Ready podReadyMs later; a pod whose nodeSelector
   * no node satisfies stays Pending with PodScheduled False (Unschedulable), as kube-scheduler leaves it.
   */
  private startPod(created: Obj): void {
    const pods = this.resource('', 'pods');
    const { namespace, name, uid } = created.metadata;
    const current = (): Obj | undefined => {
      const o = this.find(pods, namespace, name);
      return o?.metadata.uid === uid && o.metadata.deletionTimestamp === undefined ? o : undefined;
    };
    this.after(this.o.podScheduleMs, () => {
      const o = current();
      if (!o) return;
      const next = clone(o);
      const s = next.spec as { nodeName?: string; nodeSelector?: Record<string, string> };
      const now = timestamp();
      if (s.nodeName === undefined && !this.anyNodeMatches(s.nodeSelector ?? {})) {
        // As kube-scheduler: a pod no node's labels satisfy stays Pending and unscheduled.
        next.status = {
          ...(next.status as object),
          conditions: [
            {
              type: 'PodScheduled',
              status: 'False',
              reason: 'Unschedulable',
              message: `0/${this.o.nodes} nodes are available: ${this.o.nodes} node(s) didn't match Pod's node affinity/selector.`,
              lastProbeTime: null,
              lastTransitionTime: now,
            },
          ],
        };
        this.commit(pods, 'MODIFIED', next);
        return;
      }
      const node = s.nodeName ?? `sim-node-${(this.nextNode++ % this.o.nodes) + 1}`;
      s.nodeName = node;
      next.status = {
        ...(next.status as object),
        conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now }],
      };
      this.commit(pods, 'MODIFIED', next);
      this.after(this.o.podReadyMs, () => {
        const bound = current();
        if (!bound) return;
        const ready = clone(bound);
        const t = timestamp();
        const containers = (
          (ready.spec as { containers?: Array<{ name: string; image: string }> }).containers ?? []
        ).map((c) => ({
          name: c.name,
          image: c.image,
          imageID: '',
          containerID: `kwok://${randomBytes(8).toString('hex')}`,
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: t } },
        }));
        const scheduled = ((bound.status as { conditions?: unknown[] }).conditions ?? [])[0];
        const ip = `10.${(this.rv >> 16) & 255}.${(this.rv >> 8) & 255}.${this.rv & 255}`;
        ready.status = {
          phase: 'Running',
          conditions: [
            { type: 'PodReadyToStartContainers', status: 'True', lastProbeTime: null, lastTransitionTime: t },
            { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: t },
            { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: t },
            { type: 'ContainersReady', status: 'True', lastProbeTime: null, lastTransitionTime: t },
            scheduled,
          ],
          hostIP: '10.0.0.1',
          hostIPs: [{ ip: '10.0.0.1' }],
          podIP: ip,
          podIPs: [{ ip }],
          startTime: t,
          containerStatuses: containers,
          qosClass: 'BestEffort',
        };
        this.commit(pods, 'MODIFIED', ready);
      });
    });
  }

  private scheduleGc(): void {
    if (this.gcScheduled || this.closed) return;
    this.gcScheduled = true;
    setImmediate(() => {
      this.gcScheduled = false;
      if (!this.closed) this.collectGarbage();
    });
  }

  /**
   * The garbage collector, minimal: a dependent all of whose owners are gone is deleted (background); an owner
   * deleted in the foreground has its dependents deleted, and goes once none is left; an owner deleted with
   * Orphan has its references taken off its dependents, then goes.
   */
  private collectGarbage(): void {
    const dependents = new Map<string, Array<{ res: SimResource; o: Obj }>>();
    const orphans: Array<{ res: SimResource; o: Obj }> = [];
    for (const res of SIM_RESOURCES) {
      for (const o of this.store(res).values()) {
        const refs = o.metadata.ownerReferences ?? [];
        if (refs.length === 0) continue;
        for (const ref of refs) {
          const list = dependents.get(ref.uid) ?? [];
          list.push({ res, o });
          dependents.set(ref.uid, list);
        }
        if (refs.every((ref) => !this.byUid.has(ref.uid))) orphans.push({ res, o });
      }
    }
    for (const { res, o } of orphans) {
      const live = this.find(res, o.metadata.namespace, o.metadata.name);
      if (live?.metadata.uid === o.metadata.uid && live.metadata.deletionTimestamp === undefined)
        this.delete(res, o.metadata.namespace, o.metadata.name, { propagationPolicy: 'Background' });
    }
    for (const [uid, at] of [...this.byUid]) {
      const owner = this.store(at.res).get(at.key);
      if (!owner || owner.metadata.deletionTimestamp === undefined) continue;
      const finalizers = owner.metadata.finalizers ?? [];
      const deps = (dependents.get(uid) ?? []).filter(
        ({ res, o }) => this.find(res, o.metadata.namespace, o.metadata.name)?.metadata.uid === o.metadata.uid,
      );
      if (finalizers.includes(ORPHAN)) {
        for (const { res, o } of deps) {
          const live = this.find(res, o.metadata.namespace, o.metadata.name) as Obj;
          const next = clone(live);
          next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
          if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
          this.commit(res, 'MODIFIED', next);
        }
        this.dropFinalizer(at.res, owner, ORPHAN);
      } else if (finalizers.includes(FOREGROUND)) {
        const waiting = deps.filter(({ res, o }) => {
          const live = this.find(res, o.metadata.namespace, o.metadata.name);
          if (live && live.metadata.deletionTimestamp === undefined)
            this.delete(res, o.metadata.namespace, o.metadata.name, { propagationPolicy: 'Foreground' });
          return this.find(res, o.metadata.namespace, o.metadata.name) !== undefined;
        });
        if (waiting.length === 0) this.dropFinalizer(at.res, owner, FOREGROUND);
      }
    }
  }

  private dropFinalizer(res: SimResource, owner: Obj, finalizer: string): void {
    const live = this.store(res).get(
      nsName(res.namespaced ? owner.metadata.namespace : undefined, owner.metadata.name),
    );
    if (!live) return;
    const next = clone(live);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (next.metadata.finalizers.length === 0) {
      this.remove(res, next);
    } else {
      this.commit(res, 'MODIFIED', next);
    }
  }
}

/** The fields of a pod's spec an update may change (the rest stays as created). */
function pickMutablePodSpec(s: unknown): Record<string, unknown> {
  const spec = (s ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of [
    'activeDeadlineSeconds',
    'tolerations',
    'containers',
    'initContainers',
    'terminationGracePeriodSeconds',
    'schedulingGates',
  ])
    if (spec[k] !== undefined) out[k] = spec[k];
  return out;
}

function encodeContinue(rv: number, after: string): string {
  return Buffer.from(JSON.stringify({ v: 'sim.1', rv, after })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; after: string } {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { rv?: unknown; after?: unknown };
    if (typeof t.rv === 'number' && typeof t.after === 'string') return { rv: t.rv, after: t.after };
  } catch {
    // fall through
  }
  throw badRequest('continue key is not valid: illegal base64 data');
}
