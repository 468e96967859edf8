// Where a rollout's wall time goes, seen from a watch on the namespace's pods: the controller's reactions (a pod
// created or marked for deletion after the last pod event that could have triggered it) against the machinery's
// own steps (a pod marked for deletion → gone: kwok; created → Ready: kube-scheduler and kwok). In a rollout that
// replaces one pod at a time, the wall time is about the sum of both; a slower controller shows in the first.
import type { BenchClient, RawEvent, RunningWatch } from './client.js';
import type { Pod } from '../conformance/types.js';
import { median, percentile } from '../stats.js';

type Mark = 'created' | 'deleting' | 'gone' | 'ready';
type Event = { readonly at: number; readonly pod: string; readonly mark: Mark };

export type TimelineFigures = {
  /** The controller's reactions: first action after each trigger (ms), and how many. */
  readonly reactions: readonly number[];
  readonly deleteToGone: readonly number[];
  readonly createToReady: readonly number[];
  /** From the last pod event to convergence (the final status write, seen by the bench's poll). */
  readonly tailMs: number | undefined;
};

const isReady = (p: Pod): boolean =>
  ((p.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );

export class PodTimeline {
  private readonly events: Event[] = [];
  private readonly ready = new Set<string>();
  private readonly deleting = new Set<string>();
  private watch: RunningWatch | undefined;

  constructor(
    private readonly client: BenchClient,
    private readonly namespace: string,
  ) {}

  async start(): Promise<void> {
    const path = `/api/v1/namespaces/${this.namespace}/pods`;
    const list = await this.client.request<{ metadata: { resourceVersion: string }; items: Pod[] }>('GET', path);
    for (const p of list.items) this.see(p, 0, 'MODIFIED');
    this.events.length = 0;
    this.watch = await this.client.watch(path, list.metadata.resourceVersion, (e: RawEvent, at) =>
      this.see(e.object as Pod, at, e.type),
    );
  }

  stop(): void {
    this.watch?.stop();
  }

  private see(p: Pod, at: number, type: string): void {
    const name = p.metadata.name ?? '';
    const mark = (m: Mark): void => void this.events.push({ at, pod: name, mark: m });
    if (type === 'DELETED') {
      mark('gone');
      this.ready.delete(name);
      this.deleting.delete(name);
      return;
    }
    if (type === 'ADDED' && !p.metadata.deletionTimestamp) mark('created');
    if (p.metadata.deletionTimestamp && !this.deleting.has(name)) {
      this.deleting.add(name);
      mark('deleting');
    }
    if (isReady(p) && !this.ready.has(name)) {
      this.ready.add(name);
      mark('ready');
    }
  }

  /** The figures of the events from `t0` on; the step converged `ms` after t0 (null: it did not). */
  figures(t0: number, ms: number | null): TimelineFigures {
    const evs = this.events.filter((e) => e.at >= t0).sort((a, b) => a.at - b.at);
    const reactions: number[] = [];
    let trigger: number | undefined = t0; // the change itself is the first trigger
    for (const e of evs) {
      if (e.mark === 'gone' || e.mark === 'ready') trigger = e.at;
      else if (trigger !== undefined) {
        reactions.push(e.at - trigger);
        trigger = undefined; // only the first action after a trigger is a reaction to it
      }
    }
    const pairs = (from: Mark, to: Mark): number[] => {
      const start = new Map<string, number>();
      const out: number[] = [];
      for (const e of evs) {
        if (e.mark === from) start.set(e.pod, e.at);
        else if (e.mark === to && start.has(e.pod)) out.push(e.at - (start.get(e.pod) ?? e.at));
      }
      return out;
    };
    const last = evs.at(-1)?.at;
    return {
      reactions,
      deleteToGone: pairs('deleting', 'gone'),
      createToReady: pairs('created', 'ready'),
      tailMs: ms === null || last === undefined ? undefined : t0 + ms - last,
    };
  }
}

/** One line: the controller's reactions (sum, median, p90) and the machinery's steps (median). */
export function timelineLine(side: string, f: TimelineFigures | undefined): string {
  if (!f) return `  ${side}: no pod timeline`;
  const ms = (v: number | undefined): string => (v === undefined ? '—' : `${Math.round(v)} ms`);
  const sum = f.reactions.reduce((a, b) => a + b, 0);
  return (
    `  ${side}: controller reactions ${f.reactions.length}, Σ ${(sum / 1000).toFixed(1)} s ` +
    `(median ${ms(median(f.reactions))}, p90 ${ms(percentile(f.reactions, 0.9))}); ` +
    `pod deleting → gone median ${ms(median(f.deleteToGone))} (${f.deleteToGone.length}), ` +
    `created → Ready median ${ms(median(f.createToReady))} (${f.createToReady.length}); ` +
    `last pod event → converged ${ms(f.tailMs)}`
  );
}
