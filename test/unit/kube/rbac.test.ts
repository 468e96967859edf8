// fleetq's RBAC roles: built from the per-kind needs, committed as YAML under infra/k8s/ exactly as rendered,
// and in agreement with what the controllers' watch descriptors say they watch, read and write.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { clusterManifests, manifestFiles, renderFile, systemPolicy } from '../../../infra/k8s/manifests.js';
import { DESCRIPTORS } from '../../../shared/controllers/index.js';
import {
  KIND_NEEDS,
  needsOfDescriptor,
  fleetqRoles,
  optInRoles,
  optInKinds,
} from '../../../shared/controllers/roles.js';
import {
  READ_VERBS,
  forwarderRole,
  handlerRole,
  rulesOf,
  toClusterRole,
  type Access,
  type PolicyRule,
} from '../../../shared/kube/rbac.js';

const K8S_DIR = join(process.cwd(), 'infra', 'k8s');

/** `verb resource[/subresource]` per verb, the form RBAC checks a request in. */
function grants(rules: readonly PolicyRule[]): string[] {
  return rules
    .flatMap((r) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${res}${r.resourceNames ? ':named' : ''}`)))
    .sort();
}

describe('infra/k8s', () => {
  it.each(manifestFiles().map((f) => ({ file: f.file, f })))('$file is what rbac.ts renders', ({ file, f }) => {
    expect(readFileSync(join(K8S_DIR, file), 'utf8')).toBe(renderFile(f));
  });
});

describe('roles', () => {
  it('fleetq-forwarder: list and watch of what Deployment and ReplicaSet watch, the kube-system identity reads', () => {
    expect(grants(toClusterRole(fleetqRoles().forwarder).rules)).toEqual(
      [
        'list deployments',
        'watch deployments',
        'list replicasets',
        'watch replicasets',
        'list pods',
        'watch pods',
        'list namespaces',
        'get namespaces:named',
      ].sort(),
    );
    expect(fleetqRoles().forwarder.rules.find((r) => r.resourceNames)?.resourceNames).toEqual(['kube-system']);
  });

  it('fleetq-handler: the reads and writes of Deployment and ReplicaSet, no watch, nothing else', () => {
    expect(grants(toClusterRole(fleetqRoles().handler).rules)).toEqual(
      [
        'get deployments',
        'update deployments',
        'patch deployments',
        'update deployments/status',
        'update deployments/finalizers',
        'get replicasets',
        'list replicasets',
        'create replicasets',
        'update replicasets',
        'patch replicasets',
        'delete replicasets',
        'update replicasets/status',
        'update replicasets/finalizers',
        'list pods',
        'create pods',
        'patch pods',
        'delete pods',
        'create events',
        'patch events',
      ].sort(),
    );
  });

  it('the ConfigMap mirror has roles of its own, apart from the default pair', () => {
    const mirror = optInRoles('ConfigMap');
    expect(grants(toClusterRole(mirror.forwarder).rules)).toEqual(['list configmaps', 'watch configmaps']);
    expect(grants(toClusterRole(mirror.handler).rules)).toEqual(
      [
        'get configmaps',
        'list configmaps',
        'create configmaps',
        'update configmaps',
        'delete configmaps',
        'get namespaces',
      ].sort(),
    );
    const defaults = [fleetqRoles().forwarder, fleetqRoles().handler].flatMap((r) => r.rules);
    expect(defaults.some((r) => r.resources.includes('configmaps'))).toBe(false);
  });

  it('Job has roles of its own too (opt-in)', () => {
    const job = optInRoles('Job');
    expect(job.handler.name).toBe('fleetq-handler-job');
    expect(grants(toClusterRole(job.forwarder).rules)).toEqual(['list jobs', 'list pods', 'watch jobs', 'watch pods']);
    expect(grants(toClusterRole(job.handler).rules)).toEqual(
      [
        'get jobs',
        'update jobs/status',
        'update jobs/finalizers',
        'list pods',
        'create pods',
        'patch pods',
        'delete pods',
        'create events',
        'patch events',
      ].sort(),
    );
  });

  it('TTLAfterFinished has roles of its own (opt-in): watch jobs; get and delete them, nothing else', () => {
    const ttl = optInRoles('TTLAfterFinished');
    expect([ttl.forwarder.name, ttl.handler.name]).toEqual([
      'fleetq-forwarder-ttl-after-finished',
      'fleetq-handler-ttl-after-finished',
    ]);
    expect(grants(toClusterRole(ttl.forwarder).rules)).toEqual(['list jobs', 'watch jobs']);
    expect(grants(toClusterRole(ttl.handler).rules)).toEqual(['delete jobs', 'get jobs']);
    // The Job controller's handler cannot delete Jobs: that right comes only with TTLAfterFinished.
    expect(grants(toClusterRole(optInRoles('Job').handler).rules)).not.toContain('delete jobs');
  });

  it('a forwarder role that would write is refused', () => {
    const writer = { kind: 'Pod', watches: [], reads: [], writes: [] };
    const extra: Access[] = [{ kind: 'Pod', verbs: ['create'], why: 'no' }];
    expect(() => forwarderRole('bad', [writer], extra)).toThrow(/would write/);
  });

  it('a role that would grant Secrets is refused, and no role built here grants them', () => {
    const reader = {
      kind: 'X',
      watches: [],
      reads: [{ kind: 'Secret', verbs: ['get'] as const, why: 'tokens' }],
      writes: [],
    };
    expect(() => handlerRole('bad', [reader])).toThrow(/would grant Secrets \(tokens\)/);
    expect(() => forwarderRole('bad', [], [{ kind: 'Secret', verbs: ['list'], why: 'all' }])).toThrow(/Secrets/);
    const roles = [
      fleetqRoles().forwarder,
      fleetqRoles().handler,
      ...optInKinds().flatMap((k) => {
        const pair = optInRoles(k);
        return [pair.forwarder, pair.handler];
      }),
    ];
    for (const role of roles) expect(role.rules.flatMap((r) => r.resources)).not.toContain('secrets');
  });

  it('fleetq-system: admission refuses both ServiceAccounts every write there, cluster-wide rules or not', () => {
    const [policy, binding] = systemPolicy() as unknown as [Record<string, unknown>, Record<string, unknown>];
    expect(policy).toMatchObject({
      kind: 'ValidatingAdmissionPolicy',
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'fleetq-system' } },
          resourceRules: [{ operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'], resources: ['*/*'] }],
        },
        validations: [
          {
            expression:
              "!(request.userInfo.username in ['system:serviceaccount:fleetq-system:fleetq-forwarder', " +
              "'system:serviceaccount:fleetq-system:fleetq-handler'])",
          },
        ],
      },
    });
    expect(binding).toMatchObject({ spec: { policyName: 'fleetq-system-protected', validationActions: ['Deny'] } });
    // Applied wherever the roles are (the sandbox's ensureFleetqRbac, kustomize's base/rbac.yaml).
    expect(clusterManifests().map((m) => m.kind)).toEqual(expect.arrayContaining(['ValidatingAdmissionPolicyBinding']));
    const base = manifestFiles().find((f) => f.file === 'base/rbac.yaml');
    expect(base?.docs.map((d) => d.object.kind)).toContain('ValidatingAdmissionPolicy');
  });

  it('rules: one per resource, verbs merged in canonical order, reasons kept, named objects apart', () => {
    const rules = rulesOf([
      { kind: 'Pod', verbs: ['delete', 'list'], why: 'a' },
      { kind: 'Pod', verbs: ['get', 'list'], why: 'b' },
      { kind: 'Pod', subresource: 'status', verbs: ['update'], why: 'c' },
      { kind: 'Namespace', resourceNames: ['kube-system'], verbs: ['get'], why: 'd' },
      { kind: 'Deployment', verbs: ['get'], why: 'e' },
    ]);
    expect(rules).toEqual([
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'], why: ['e'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'delete'], why: ['a', 'b'] },
      { apiGroups: [''], resources: ['pods/status'], verbs: ['update'], why: ['c'] },
      { apiGroups: [''], resources: ['namespaces'], resourceNames: ['kube-system'], verbs: ['get'], why: ['d'] },
    ]);
  });
});

describe('needs derive from the watch descriptors', () => {
  it('every kind with a controller has needs (else its handler meets a 403), and only those', () => {
    expect(KIND_NEEDS.map((n) => n.kind).sort()).toEqual([...DESCRIPTORS.controllers().keys()].sort());
  });

  it("a kind needs its For, Owns and Watches watched, its access, and its owners' finalizers rule", () => {
    const deployment = DESCRIPTORS.descriptor('Deployment');
    const needs = deployment && needsOfDescriptor(deployment);
    expect(needs?.watches.map((w) => w.kind)).toEqual(['Deployment', 'ReplicaSet', 'Pod']);
    expect(needs?.watches.map((w) => DESCRIPTORS.resourceOf(w.kind).plural).sort()).toEqual(
      DESCRIPTORS.watchesOf('Deployment').sort(),
    );
    expect(needs?.reads).toBe(deployment?.access?.reads);
    expect(needs?.writes.slice(0, -1)).toEqual(deployment?.access?.writes);
    expect(needs?.writes.at(-1)).toMatchObject({ kind: 'Deployment', subresource: 'finalizers', verbs: ['update'] });
    // Owns nothing: no finalizers rule. StatefulSet (written now) owns pods, revisions and claims: its finalizers rule.
    const mirror = DESCRIPTORS.descriptor('ConfigMap');
    expect(mirror && needsOfDescriptor(mirror)?.writes.some((a) => a.subresource === 'finalizers')).toBe(false);
    const statefulSet = DESCRIPTORS.descriptor('StatefulSet');
    expect(statefulSet && needsOfDescriptor(statefulSet)?.writes.at(-1)).toMatchObject({
      kind: 'StatefulSet',
      subresource: 'finalizers',
    });
  });

  it('handler reads are reads', () => {
    for (const needs of KIND_NEEDS)
      expect(needs.reads.every((a) => a.verbs.every((v) => READ_VERBS.includes(v)))).toBe(true);
  });
});
