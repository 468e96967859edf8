// Which live forwarder should hold each cluster: rendezvous (highest-random-weight) hashing with a bounded
// load. Every forwarder computes it from the same inputs (the registry's cluster names and the pool's live
// members) and gets the same answer, with no coordinator. Each cluster goes to the member that ranks it
// highest among those not yet full (floor(n/m) each, n mod m of them one more), taking clusters in a fixed order (their own hash),
// so no forwarder gets more than ceil(n/m) and no fewer than floor(n/m) — an even spread — and a member joining
// or leaving moves few clusters (mostly those whose top choice changed). Pure: no I/O, no clock.
// `excluded` (cluster → members): members left out of that cluster's ranking (they gave it up after failed
// starts); a cluster every live member gave up is assigned to none (until a give-up expires).
// `quarantined`: clusters no member may take (cluster-quarantine.ts): assigned to none, and left out of the
// shares, so the other clusters are spread evenly among the members as if they were not registered.
import { createHash } from 'node:crypto';

function weight(cluster: string, member: string): bigint {
  return createHash('sha256').update(`${cluster}\u0000${member}`).digest().readBigUInt64BE(0);
}

function order(cluster: string): bigint {
  return createHash('sha256').update(cluster).digest().readBigUInt64BE(0);
}

const byWeight = (a: bigint, b: bigint): number => (a < b ? 1 : a > b ? -1 : 0);

/** cluster → member; empty when there are no members; a cluster every member gave up, or quarantined, is absent. */
export function assignClusters(
  clusters: readonly string[],
  members: readonly string[],
  excluded: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
  quarantined: ReadonlySet<string> = new Set(),
): Map<string, string> {
  const out = new Map<string, string>();
  const live = [...new Set(members)].sort();
  if (live.length === 0) return out;
  const names = [...new Set(clusters)]
    .filter((c) => !quarantined.has(c))
    .sort((a, b) => byWeight(order(a), order(b)) || a.localeCompare(b));
  // floor(n/m) each, and n mod m of them one more: the first to reach floor takes it.
  const floor = Math.floor(names.length / live.length);
  let extra = names.length % live.length;
  const load = new Map(live.map((m) => [m, 0]));
  const open = (m: string): boolean => {
    const l = load.get(m) ?? 0;
    return l < floor || (l === floor && extra > 0);
  };
  for (const cluster of names) {
    const skip = excluded.get(cluster);
    const ranked = live
      .filter((m) => !skip?.has(m))
      .map((m) => ({ m, w: weight(cluster, m) }))
      .sort((a, b) => byWeight(a.w, b.w) || a.m.localeCompare(b.m));
    const pick = ranked.find((r) => open(r.m)) ?? ranked[0];
    if (!pick) continue; // every live member gave it up
    const l = load.get(pick.m) ?? 0;
    if (l === floor) extra--;
    out.set(cluster, pick.m);
    load.set(pick.m, l + 1);
  }
  return out;
}

/** How many clusters each member is assigned (members with none included). */
export function assignedCounts(
  assignment: ReadonlyMap<string, string>,
  members: readonly string[],
): Map<string, number> {
  const counts = new Map(members.map((m) => [m, 0]));
  for (const m of assignment.values()) counts.set(m, (counts.get(m) ?? 0) + 1);
  return counts;
}
