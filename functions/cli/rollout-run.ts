// The work of `fleetq rollout` (rollout.ts defines the commands): FleetRollouts read from and written to the
// registry's hub cluster. Every object read is parsed as untrusted (shared/rollouts/types.ts), so a malformed one
// is an error naming the field. Pause and resume merge-patch spec.paused; approve and retry write the status
// subresource with the resourceVersion read as a precondition, and read again and retry on a conflict (409).
import { KubeRest, NO_RATE_LIMIT } from '../../shared/kube/rest.js';
import type { ApiError } from '../../shared/kube/errors.js';
import { isConflict, isNotFound } from '../../shared/kube/errors.js';
import { ClusterRegistry, loadRegistry } from '../../shared/kube/registry.js';
import {
  currentEntry,
  FAILED_PHASES,
  formatList,
  formatProgress,
  isApproved,
  listRow,
  rolloutProgress,
  TERMINAL_PHASES,
  type RolloutListRow,
  type RolloutProgress,
} from '../../shared/rollouts/format.js';
import {
  FLEET_ROLLOUT_API_VERSION,
  FleetRolloutError,
  parseFleetRollout,
  type FleetRollout,
} from '../../shared/rollouts/types.js';
import { inertYaml, terminalSafeJson } from '../../shared/ops/terminal-text.js';
import { textStyleFor } from '../../shared/ops/text-table.js';
import { configFromFlags, durationFlag, nearest, printResult, UsageError, type OutputFormat } from './common.js';

export type RolloutAction = 'list' | 'status' | 'pause' | 'resume' | 'approve' | 'retry';

export type RolloutFlags = {
  readonly registry?: string;
  readonly namespace: string;
  readonly allNamespaces?: boolean;
  readonly output?: OutputFormat;
  readonly watch?: boolean;
  readonly interval?: string;
  readonly wave?: string;
};

/** Status writes tried this many times when another writer (the planner) got in between. */
const STATUS_WRITE_ATTEMPTS = 5;

const GROUP_PATH = `/apis/${FLEET_ROLLOUT_API_VERSION}`;
const objectPath = (namespace: string, name: string) =>
  `${GROUP_PATH}/namespaces/${encodeURIComponent(namespace)}/fleetrollouts/${encodeURIComponent(name)}`;

type RawObject = {
  metadata?: { creationTimestamp?: unknown; managedFields?: unknown; [k: string]: unknown };
  [k: string]: unknown;
};

/** The hub cluster and a client of it (only its request method is used). */
export type Hub = { readonly name: string; readonly rest: Pick<KubeRest, 'request'> };

/** The registry's hub cluster; none is bad usage (exit 2) saying how to mark one. */
async function hubOf(flags: RolloutFlags): Promise<Hub> {
  const config = await configFromFlags(flags, { registry: 'FLEETQ_REGISTRY' });
  const path = config.FLEETQ_REGISTRY;
  if (!path) throw new UsageError('no cluster registry: give --registry FILE or set FLEETQ_REGISTRY');
  const registry = new ClusterRegistry(loadRegistry(path));
  const hub = registry.clusters.find((c) => c.hub === true);
  if (hub === undefined)
    throw new UsageError(
      `no cluster of the registry ${path} is the hub: add "hub: true" to the entry of the cluster that holds ` +
        'the FleetRollouts (one cluster at most)',
    );
  return { name: hub.name, rest: new KubeRest(hub.name, () => registry.kubeConfig(hub.name), NO_RATE_LIMIT) };
}

/** A refusal of the apiserver said plainly: the CRD missing, or the object. */
function notFound(hub: Hub, err: unknown, what: string): never {
  if (isNotFound(err)) {
    const body = (err as ApiError).body;
    const crdMissing = !body.includes('"name"');
    throw new Error(
      crdMissing
        ? `the hub cluster ${hub.name} does not serve FleetRollouts: apply infra/k8s/fleetrollout-crd.yaml there`
        : `${what} not found on the hub cluster ${hub.name}`,
    );
  }
  throw err;
}

type Read = { readonly raw: RawObject; readonly rollout: FleetRollout };

async function readRollout(hub: Hub, namespace: string, name: string): Promise<Read> {
  const raw = await hub.rest
    .request<RawObject>('GET', objectPath(namespace, name))
    .catch((err: unknown) => notFound(hub, err, `FleetRollout ${namespace}/${name}`));
  return { raw, rollout: parse(raw) };
}

function parse(raw: unknown): FleetRollout {
  try {
    return parseFleetRollout(raw);
  } catch (err) {
    if (err instanceof FleetRolloutError) throw new Error(err.message);
    throw err;
  }
}

function requireName(name: string | undefined): string {
  if (name === undefined || name === '') throw new UsageError('give the FleetRollout name');
  return name;
}

async function list(_name: string | undefined, flags: RolloutFlags): Promise<void> {
  const hub = await hubOf(flags);
  const path = flags.allNamespaces
    ? `${GROUP_PATH}/fleetrollouts`
    : `${GROUP_PATH}/namespaces/${encodeURIComponent(flags.namespace)}/fleetrollouts`;
  const res = await hub.rest
    .request<{ items?: RawObject[] }>('GET', path)
    .catch((err: unknown) => notFound(hub, err, 'FleetRollouts'));
  const rows: RolloutListRow[] = [];
  const problems: string[] = [];
  for (const raw of res.items ?? []) {
    try {
      const created = raw.metadata?.creationTimestamp;
      rows.push(listRow(parse(raw), typeof created === 'string' ? created : undefined));
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  const now = Date.now();
  await printResult(flags.output ?? 'table', {
    data: rows,
    table: () => formatList(rows, now, { style: textStyleFor(process.stdout) }),
  });
  if (problems.length > 0) throw new Error(`${problems.length} FleetRollout(s) not shown:\n${problems.join('\n')}`);
}

/** What -o json|yaml prints: the object as stored (no managed fields) and the progress view drawn from it. */
function statusData(raw: RawObject, progress: RolloutProgress): unknown {
  const { managedFields: _managed, ...metadata } = raw.metadata ?? {};
  return {
    rollout: { apiVersion: raw.apiVersion, kind: raw.kind, metadata, spec: raw.spec, status: raw.status ?? {} },
    progress,
  };
}

async function render(read: Read, format: OutputFormat, watch: boolean): Promise<string> {
  const now = Date.now();
  const progress = rolloutProgress(read.rollout, now);
  switch (format) {
    case 'json':
      // Watching: one JSON document per line (JSON lines), as `fleetq status --watch` prints.
      return watch
        ? terminalSafeJson(statusData(read.raw, progress))
        : terminalSafeJson(statusData(read.raw, progress), 2);
    case 'yaml':
      return `${watch ? '---\n' : ''}${await inertYaml(statusData(read.raw, progress))}`.trimEnd();
    case 'table':
    case 'wide':
      return formatProgress(progress, now, { wide: format === 'wide', style: textStyleFor(process.stdout) });
  }
}

/** Exit 1 on a rollout that did not make it (RolledBack, Halted), naming why. */
function failIfStopped(r: FleetRollout): void {
  const phase = r.status.phase;
  if (phase === undefined || !FAILED_PHASES.includes(phase)) return;
  const reason = currentEntry(r)?.stopReason;
  throw new Error(
    `FleetRollout ${r.metadata.namespace}/${r.metadata.name} is ${phase}${reason === undefined ? '' : `: ${reason}`}`,
  );
}

async function status(name: string | undefined, flags: RolloutFlags): Promise<void> {
  const rolloutName = requireName(name);
  const format = flags.output ?? 'table';
  const intervalMs = durationFlag(flags.interval ?? '2s', '--interval');
  if (intervalMs < 100) throw new UsageError(`--interval ${flags.interval}: at least 100ms`);
  const hub = await hubOf(flags);
  if (!flags.watch) {
    const read = await readRollout(hub, flags.namespace, rolloutName);
    console.log(await render(read, format, false));
    return failIfStopped(read.rollout);
  }
  const redraw = process.stdout.isTTY === true && (format === 'table' || format === 'wide');
  let stop: (() => void) | undefined;
  const stopped = new Promise<'stop'>((resolve) => (stop = () => resolve('stop')));
  const onSignal = () => stop?.();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let last: string | undefined;
    for (;;) {
      const read = await readRollout(hub, flags.namespace, rolloutName);
      // A change is a change of the object's spec or status; a redraw also refreshes the ages and soak left.
      const seen = JSON.stringify([read.raw.spec, read.raw.status]);
      if (seen !== last || redraw) {
        const text = await render(read, format, true);
        if (redraw) process.stdout.write('\x1b[2J\x1b[H');
        console.log(text);
        last = seen;
      }
      const phase = read.rollout.status.phase;
      if (phase !== undefined && TERMINAL_PHASES.includes(phase)) return failIfStopped(read.rollout);
      let timer: NodeJS.Timeout | undefined;
      const next = await Promise.race([
        stopped,
        new Promise<'next'>((resolve) => (timer = setTimeout(() => resolve('next'), intervalMs))),
      ]);
      clearTimeout(timer);
      if (next === 'stop') return;
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function setPaused(name: string | undefined, flags: RolloutFlags, paused: boolean): Promise<void> {
  const rolloutName = requireName(name);
  const hub = await hubOf(flags);
  const what = `FleetRollout ${flags.namespace}/${rolloutName}`;
  await hub.rest
    .request('PATCH', objectPath(flags.namespace, rolloutName), {
      body: { spec: { paused } },
      contentType: 'application/merge-patch+json',
    })
    .catch((err: unknown) => notFound(hub, err, what));
  console.log(`${what} ${paused ? 'paused' : 'resumed'}`);
}

/** A status change decided from the rollout as read; undefined: nothing to write (it printed why). */
export type StatusChange = (
  r: FleetRollout,
) => { readonly status: Record<string, unknown>; readonly done: string } | undefined;

/**
 * Writes the status change `change` decides from what it reads, with the resourceVersion read as a precondition;
 * a conflict (another writer in between) reads again and decides again. `change` returns undefined when there is
 * nothing to write (it printed why), or throws to refuse.
 */
export async function writeStatus(hub: Hub, namespace: string, name: string, change: StatusChange): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const { rollout } = await readRollout(hub, namespace, name);
    const patch = change(rollout);
    if (patch === undefined) return;
    try {
      await hub.rest.request('PATCH', `${objectPath(namespace, name)}/status`, {
        body: { metadata: { resourceVersion: rollout.metadata.resourceVersion }, status: patch.status },
        contentType: 'application/merge-patch+json',
      });
      console.log(patch.done);
      return;
    } catch (err) {
      if (isConflict(err) && attempt < STATUS_WRITE_ATTEMPTS) continue;
      if (isConflict(err))
        throw new Error(
          `FleetRollout ${namespace}/${name}: the status changed under each of ${STATUS_WRITE_ATTEMPTS} writes; try again`,
        );
      return notFound(hub, err, `FleetRollout ${namespace}/${name}`);
    }
  }
}

/** What `approve` writes to a rollout as read: the approval of `waveFlag`, else of the first gated wave waiting. */
export function approvalChange(waveFlag: string | undefined): StatusChange {
  const flags = { wave: waveFlag };
  return (r) => {
    const what = `FleetRollout ${r.metadata.namespace}/${r.metadata.name}`;
    const entry = currentEntry(r);
    if (entry === undefined) throw new Error(`${what} has no revision in its ledger yet: nothing to approve`);
    const revision = entry.revision;
    let wave: string;
    if (flags.wave !== undefined) {
      const names = r.spec.waves.map((w) => w.name);
      const w = r.spec.waves.find((x) => x.name === flags.wave);
      if (w === undefined) {
        const near = nearest(flags.wave, names);
        throw new UsageError(
          `--wave ${JSON.stringify(flags.wave)}: ${what} has no such wave${near === undefined ? '' : `; did you mean ${near}?`} (waves: ${names.join(', ')})`,
        );
      }
      if (!w.approval)
        throw new UsageError(`--wave ${w.name}: the wave does not need an approval (it has no approval: true)`);
      if (isApproved(r, revision, w.name)) {
        console.log(`${what}: wave ${w.name} is already approved for revision ${revision}`);
        return undefined;
      }
      wave = w.name;
    } else {
      const waiting = r.spec.waves.find((w) => w.approval && !isApproved(r, revision, w.name));
      if (waiting === undefined) {
        const gated = r.spec.waves.filter((w) => w.approval).map((w) => w.name);
        throw new Error(
          gated.length === 0
            ? `${what}: no wave waits for an approval (none has approval: true)`
            : `${what}: no wave waits for an approval; ${gated.join(', ')} already approved for revision ${revision}`,
        );
      }
      wave = waiting.name;
    }
    const approvals = [...(r.status.approvals ?? []), { revision, wave, at: new Date().toISOString() }];
    return { status: { approvals }, done: `${what}: wave ${wave} approved for revision ${revision}` };
  };
}

async function approve(name: string | undefined, flags: RolloutFlags): Promise<void> {
  const rolloutName = requireName(name);
  const hub = await hubOf(flags);
  await writeStatus(hub, flags.namespace, rolloutName, approvalChange(flags.wave));
}

/** What `retry` writes: a retry of the current revision, refused unless that revision has stopped. */
export const retryChange: StatusChange = (r) => {
  const what = `FleetRollout ${r.metadata.namespace}/${r.metadata.name}`;
  const entry = currentEntry(r);
  if (entry === undefined) throw new Error(`${what} has no revision in its ledger yet: nothing to retry`);
  if (entry.stoppedAt === undefined)
    throw new Error(
      `${what}: revision ${entry.revision} is ${entry.phase}, not stopped; retry rolls again only a revision ` +
        'that was rolled back or halted',
    );
  return {
    status: { retry: { revision: entry.revision, at: new Date().toISOString() } },
    done: `${what}: retry of revision ${entry.revision} asked for (attempt ${entry.attempt + 1})`,
  };
};

async function retry(name: string | undefined, flags: RolloutFlags): Promise<void> {
  const rolloutName = requireName(name);
  const hub = await hubOf(flags);
  await writeStatus(hub, flags.namespace, rolloutName, retryChange);
}

export const rolloutActions: Record<RolloutAction, (name: string | undefined, flags: RolloutFlags) => Promise<void>> = {
  list,
  status,
  pause: (name, flags) => setPaused(name, flags, true),
  resume: (name, flags) => setPaused(name, flags, false),
  approve,
  retry,
};
