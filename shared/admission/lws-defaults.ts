// LeaderWorkerSet's request-time defaults, as lws v0.9.0's webhook Default() sets them
// (pkg/webhooks/leaderworkerset_webhook.go), in its order:
//   spec.leaderWorkerTemplate.restartPolicy   RecreateGroupOnPodRestart   when absent or ""
//   spec.leaderWorkerTemplate.restartPolicy   None                        when "Default" (the deprecated name)
//   spec.rolloutStrategy.type                 RollingUpdate               when absent or ""
//   spec.rolloutStrategy.rollingUpdateConfiguration {partition: 0, maxUnavailable: 1, maxSurge: 0}
//                                                                         when absent and the type is RollingUpdate
//   spec.networkConfig.subdomainPolicy        Shared                      when absent (networkConfig too)
// The CRD's schema defaults (replicas 1, size 1, startupPolicy LeaderCreated, ...) are applied by the API server
// before any webhook runs, so they are not repeated here.
//
// The object is raw JSON: fields this code does not know are kept. The result is the defaulted copy and the
// JSONPatch (RFC 6902) that turns the request's object into it.
import type { LeaderWorkerSet } from '../controllers/leaderworkerset/types.js';
import { RestartPolicy, RolloutStrategyType, SubdomainPolicy } from '../controllers/leaderworkerset/types.js';
import type { JsonPatchOp } from './jobset-defaults.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const pointer = (segments: string[]) => segments.map((s) => '/' + s.replace(/~/g, '~0').replace(/\//g, '~1')).join('');

export type LwsDefaulted = { lws: LeaderWorkerSet; patch: JsonPatchOp[] };

/**
 * Sets `value` at `segments` under `root` when the field is absent or null (or, with `when`, when `when(current)`).
 * A missing parent is added whole by one op, so each op applies to the object as it is then. A parent that is
 * there but not an object is left alone: Go's decoding refuses such an object before Default() runs.
 */
function set(root: Json, segments: string[], value: unknown, patch: JsonPatchOp[], when?: (v: unknown) => boolean) {
  let node = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const next = node[segments[i]!];
    if (next === undefined || next === null) {
      let built: unknown = value;
      for (let j = segments.length - 1; j > i; j--) built = { [segments[j]!]: built };
      node[segments[i]!] = built;
      patch.push({ op: 'add', path: pointer(segments.slice(0, i + 1)), value: structuredClone(built) });
      return;
    }
    if (!isObject(next)) return;
    node = next;
  }
  const last = segments[segments.length - 1]!;
  const current = node[last];
  if (current === undefined || current === null) {
    node[last] = value;
    patch.push({ op: 'add', path: pointer(segments), value: structuredClone(value) });
  } else if (when?.(current)) {
    node[last] = value;
    patch.push({ op: 'replace', path: pointer(segments), value: structuredClone(value) });
  }
}

const fieldAt = (root: Json, segments: string[]): unknown => {
  let node: unknown = root;
  for (const s of segments) node = isObject(node) ? node[s] : undefined;
  return node;
};

/** Default(): returns a defaulted copy of the LeaderWorkerSet and the patch; the input is not changed. */
export function defaultLeaderWorkerSet(input: LeaderWorkerSet): LwsDefaulted {
  const root = structuredClone(input) as unknown as Json;
  const patch: JsonPatchOp[] = [];
  if (!isObject(root)) return { lws: input, patch };

  const restartPolicy = ['spec', 'leaderWorkerTemplate', 'restartPolicy'];
  set(root, restartPolicy, RestartPolicy.RecreateGroupOnPodRestart, patch, (v) => v === '');
  if (fieldAt(root, restartPolicy) === RestartPolicy.Default) {
    set(root, restartPolicy, RestartPolicy.None, patch, () => true);
  }

  set(root, ['spec', 'rolloutStrategy', 'type'], RolloutStrategyType.RollingUpdate, patch, (v) => v === '');
  if (fieldAt(root, ['spec', 'rolloutStrategy', 'type']) === RolloutStrategyType.RollingUpdate) {
    // Go's encoding of the configuration it builds: partition, then maxUnavailable and maxSurge (never omitted).
    set(
      root,
      ['spec', 'rolloutStrategy', 'rollingUpdateConfiguration'],
      { partition: 0, maxUnavailable: 1, maxSurge: 0 },
      patch,
    );
  }

  set(root, ['spec', 'networkConfig', 'subdomainPolicy'], SubdomainPolicy.Shared, patch);
  return { lws: root as unknown as LeaderWorkerSet, patch };
}
