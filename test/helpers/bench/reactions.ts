// The reaction probe's analysis (test/bench/reaction-probe.ts): the controller-side writes of a namespace, read
// from the apiserver's audit log, and for each pod event the time to the controller's next pod write.
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ClusterState } from '../../../infra/sandbox/cluster.js';
import { clientOf } from '../sandbox/audit-log.js';
import { mean, median, percentile } from '../stats.js';

type AuditLine = {
  auditID: string;
  stage: string;
  verb: string;
  user?: { username?: string };
  userAgent?: string;
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp: string;
};

/** A request of the window: who, what, when (ms, received). */
export type Req = { at: number; client: string; verb: string; what: string; name: string; code: number };

export async function requestsOf(state: ClusterState, ns: string, from: number, to: number): Promise<Req[]> {
  const path = state.auditLog ?? '';
  if (!existsSync(path)) throw new Error(`${state.name}: no audit log (start it with --audit)`);
  const out = new Map<string, Req>();
  const lines = createInterface({ input: createReadStream(path) });
  for await (const line of lines) {
    if (!line.includes(ns)) continue;
    const e = JSON.parse(line) as AuditLine;
    if (e.objectRef?.namespace !== ns || out.has(e.auditID)) continue;
    const at = Date.parse(e.requestReceivedTimestamp);
    if (at < from || at > to || e.verb === 'watch' || e.verb === 'list' || e.verb === 'get') continue;
    const resource = `${e.objectRef.resource ?? ''}${e.objectRef.subresource ? `/${e.objectRef.subresource}` : ''}`;
    out.set(e.auditID, {
      at,
      client: clientOf(e.user?.username ?? '', e.userAgent ?? '', false),
      verb: e.verb,
      what: resource,
      name: e.objectRef.name ?? '',
      code: e.responseStatus?.code ?? 0,
    });
  }
  return [...out.values()].sort((a, b) => a.at - b.at);
}

export const isController = (r: Req): boolean => r.client.startsWith('kcm/') || r.client.startsWith('fleetq/');

/** A pod becoming Ready or gone, as this process's watch saw it. */
export type Trigger = { at: number; what: 'ready' | 'gone'; name: string };

/**
 * Gaps: from each trigger to the controller's next pod create or delete (its status writes are not what moves a
 * rollout); a trigger followed by another before any action counts from the first.
 */
export function reactions(
  triggers: readonly Trigger[],
  reqs: readonly Req[],
): Array<{ trigger: Trigger; action: Req; ms: number }> {
  const actions = reqs.filter(
    (r) => isController(r) && r.what === 'pods' && (r.verb === 'create' || r.verb === 'delete') && r.code < 300,
  );
  const events = [...triggers.map((t) => ({ at: t.at, t })), ...actions.map((a) => ({ at: a.at, a }))].sort(
    (x, y) => x.at - y.at,
  );
  const out: Array<{ trigger: Trigger; action: Req; ms: number }> = [];
  let trigger: Trigger | undefined;
  for (const e of events) {
    if ('t' in e) trigger ??= e.t;
    else if (trigger) {
      out.push({ trigger, action: e.a, ms: e.a.at - trigger.at });
      trigger = undefined;
    }
  }
  return out;
}

/** n, median, p90 and mean of durations (ms), or '—' when there are none. */
export const fmt = (xs: readonly number[]): string =>
  xs.length === 0
    ? '—'
    : `n ${xs.length}, median ${(median(xs) ?? NaN).toFixed(0)} ms, p90 ${(percentile(xs, 0.9) ?? NaN).toFixed(0)} ms, ` +
      `mean ${(mean(xs) ?? NaN).toFixed(0)} ms`;
