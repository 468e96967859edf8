// JobSet's request-time defaults, as jobset v0.12.0's webhook Default() sets them (pkg/webhooks/jobset_webhook.go):
//   spec.successPolicy                       {operator: All}            when absent
//   spec.startupPolicy                       {startupPolicyOrder: AnyOrder} when absent
//   replicatedJobs[].template.spec.completionMode            Indexed   when absent
//   replicatedJobs[].template.spec.template.spec.restartPolicy OnFailure when absent or ""
//   spec.network.enableDNSHostnames          true                       when absent
//   spec.network.publishNotReadyAddresses    true                       when absent
//   spec.failurePolicy.rules[i].name         failurePolicyRule<i>       when absent or ""
//   spec.volumeClaimPolicies[i].retentionPolicy {whenDeleted: Delete}   when absent
// The CRD's own schema defaults (groupName "default", replicas 1, restartStrategy Recreate, ...) are applied by the
// API server before any webhook runs, so they are not repeated here.
//
// The object is raw JSON: fields this code does not know are kept. The result is the defaulted copy and the
// JSONPatch (RFC 6902) that turns the request's object into it, each op adding a field that was absent (or
// replacing one that was empty), in the order Default() sets them.
import type { JobSet } from '../controllers/jobset/types.js';

export type JsonPatchOp = { op: 'add' | 'replace'; path: string; value: unknown };
export type Defaulted = { jobSet: JobSet; patch: JsonPatchOp[] };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const pointer = (segments: (string | number)[]) =>
  segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');

/**
 * Sets `value` at `segments` under `root` when the field there is absent (or, with `emptyToo`, ""). Missing parents
 * are created, and the patch adds the outermost missing one whole, so each op applies to the object as it is then.
 * A parent that is there but not an object is left alone (the API server's schema check refuses the object).
 */
function setDefault(root: Json, segments: (string | number)[], value: unknown, patch: JsonPatchOp[], emptyToo = false) {
  let node: Json = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const key = String(segments[i]);
    const next = node[key];
    if (next === undefined || next === null) {
      let built: unknown = value;
      for (let j = segments.length - 1; j > i; j--) built = { [String(segments[j])]: built };
      node[key] = built;
      patch.push({ op: 'add', path: pointer(segments.slice(0, i + 1)), value: structuredClone(built) });
      return;
    }
    if (typeof next !== 'object') return;
    node = next as Json;
  }
  const last = String(segments[segments.length - 1]);
  const current = node[last];
  if (current === undefined || current === null) {
    node[last] = value;
    patch.push({ op: 'add', path: pointer(segments), value: structuredClone(value) });
  } else if (emptyToo && current === '') {
    node[last] = value;
    patch.push({ op: 'replace', path: pointer(segments), value: structuredClone(value) });
  }
}

/** Default(): returns a defaulted copy of the JobSet and the patch; the input is not changed. */
export function defaultJobSet(input: JobSet): Defaulted {
  const root = structuredClone(input) as unknown as Json;
  const patch: JsonPatchOp[] = [];
  if (!isObject(root.spec)) {
    if (root.spec !== undefined && root.spec !== null) return { jobSet: input, patch };
    root.spec = {};
    patch.push({ op: 'add', path: '/spec', value: {} });
  }
  const spec = root.spec as Json;

  setDefault(root, ['spec', 'successPolicy'], { operator: 'All' }, patch);
  setDefault(root, ['spec', 'startupPolicy'], { startupPolicyOrder: 'AnyOrder' }, patch);
  const rJobs = Array.isArray(spec.replicatedJobs) ? spec.replicatedJobs : [];
  rJobs.forEach((rJob, i) => {
    if (!isObject(rJob)) return;
    setDefault(root, ['spec', 'replicatedJobs', i, 'template', 'spec', 'completionMode'], 'Indexed', patch);
    setDefault(
      root,
      ['spec', 'replicatedJobs', i, 'template', 'spec', 'template', 'spec', 'restartPolicy'],
      'OnFailure',
      patch,
      true,
    );
  });

  setDefault(root, ['spec', 'network', 'enableDNSHostnames'], true, patch);
  setDefault(root, ['spec', 'network', 'publishNotReadyAddresses'], true, patch);

  const failurePolicy = spec.failurePolicy;
  if (isObject(failurePolicy) && Array.isArray(failurePolicy.rules)) {
    failurePolicy.rules.forEach((rule, i) => {
      if (isObject(rule))
        setDefault(root, ['spec', 'failurePolicy', 'rules', i, 'name'], `failurePolicyRule${i}`, patch, true);
    });
  }

  if (Array.isArray(spec.volumeClaimPolicies)) {
    spec.volumeClaimPolicies.forEach((policy, i) => {
      if (isObject(policy)) {
        setDefault(root, ['spec', 'volumeClaimPolicies', i, 'retentionPolicy'], { whenDeleted: 'Delete' }, patch);
      }
    });
  }

  return { jobSet: root as unknown as JobSet, patch };
}
