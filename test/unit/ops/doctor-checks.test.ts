// The pure parts of `fleetq doctor`: the permissions each owned kind needs (from the controllers' descriptors,
// as infra/k8s renders them), who wrote an object's status, when the signing secret is required, the throwaway
// objects of --probe, and the report's lines.
import { describe, expect, it } from '@jest/globals';
import {
  describePermission,
  identityPermissions,
  permissionsOf,
  rbacFileOf,
} from '../../../shared/ops/doctor-access.js';
import { kcmStatusWrite } from '../../../shared/ops/doctor-conflicts.js';
import { probeObject } from '../../../shared/ops/doctor-probe.js';
import { checkSigningSecret } from '../../../shared/ops/doctor-store.js';
import { formatChecks, hasFailure, type Check } from '../../../shared/ops/doctor.js';
import { loadConfig } from '../../../shared/runtime/config.js';

describe('permissionsOf', () => {
  it("asks for what ReplicaSet's forwarder watches and its handler writes", () => {
    const wanted = (permissionsOf('ReplicaSet') ?? []).map(describePermission);
    expect(wanted).toEqual(
      expect.arrayContaining([
        'list replicasets.apps',
        'watch replicasets.apps',
        'watch pods',
        'create pods',
        'delete pods',
        'update replicasets/status.apps',
        'create events',
      ]),
    );
    expect(wanted).not.toContain('list secrets');
  });

  it('names the RBAC file of an opt-in kind, and the two default roles for a default kind', () => {
    expect(rbacFileOf('Job')).toBe('infra/k8s/job-rbac.yaml');
    expect(rbacFileOf('ConfigMap')).toBe('infra/k8s/configmap-mirror-rbac.yaml');
    expect(rbacFileOf('ReplicaSet')).toBe('infra/k8s/forwarder-clusterrole.yaml and handler-clusterrole.yaml');
  });

  it("asks for the forwarder's identity reads of every cluster", () => {
    expect(identityPermissions().map(describePermission)).toEqual(['list namespaces', 'get namespaces kube-system']);
  });
});

describe('kcmStatusWrite', () => {
  const at = '2026-01-01T00:00:00Z';
  it.each([
    {
      name: 'its status Update',
      fields: [{ manager: 'kube-controller-manager', operation: 'Update', subresource: 'status', time: at }],
      want: Date.parse(at),
    },
    {
      name: 'a write of the object itself',
      fields: [{ manager: 'kube-controller-manager', operation: 'Update', time: at }],
      want: undefined,
    },
    {
      name: "another manager's status",
      fields: [{ manager: 'fleetq', operation: 'Update', subresource: 'status', time: at }],
      want: undefined,
    },
    { name: 'no managedFields', fields: undefined, want: undefined },
  ])('$name', ({ fields, want }) => expect(kcmStatusWrite({ metadata: { managedFields: fields } })).toBe(want));
});

describe('checkSigningSecret', () => {
  const config = (env: Record<string, string | undefined>) => loadConfig({ FLEETQ_ALLOW_INSECURE_REDIS: '1', ...env });
  it.each([
    { name: 'memory driver: not needed', env: {}, lambda: false, want: 'ok' },
    { name: 'set', env: { FLEETQ_DRIVER: 'redis', FLEETQ_SIGNING_SECRET: 'x'.repeat(16) }, lambda: false, want: 'ok' },
    { name: 'Redis on this machine: a warning', env: { FLEETQ_DRIVER: 'redis' }, lambda: false, want: 'warn' },
    {
      name: 'Redis elsewhere: required',
      env: { FLEETQ_DRIVER: 'redis', REDIS_URL: 'redis://redis.example:6379' },
      lambda: false,
      want: 'FAIL',
    },
    { name: 'SQS in AWS: required', env: { FLEETQ_DRIVER: 'sqs' }, lambda: false, want: 'FAIL' },
    {
      name: 'an SQS emulator here: a warning',
      env: { FLEETQ_DRIVER: 'sqs', SQS_ENDPOINT: 'http://127.0.0.1:4566' },
      lambda: false,
      want: 'warn',
    },
    { name: 'Lambda: required', env: { FLEETQ_DRIVER: 'redis' }, lambda: true, want: 'FAIL' },
  ])('$name', ({ env, lambda, want }) =>
    expect(checkSigningSecret(config(env), lambda ? { AWS_LAMBDA_FUNCTION_NAME: 'f' } : {}).status).toBe(want),
  );
});

describe('probeObject', () => {
  it('makes objects that run nothing, and none for a kind it cannot make harmlessly', () => {
    expect(probeObject('ReplicaSet', 'p')).toMatchObject({ kind: 'ReplicaSet', spec: { replicas: 0 } });
    expect(probeObject('Job', 'p')).toMatchObject({ spec: { suspend: true } });
    expect(probeObject('DaemonSet', 'p')).toMatchObject({
      spec: { template: { spec: { nodeSelector: { 'fleetq.dev/doctor-probe': 'no-such-node' } } } },
    });
    expect(probeObject('CronJob', 'p')).toBeUndefined();
  });
});

describe('formatChecks', () => {
  it('prints one line per check, the fix of a warning or failure under it, and a count', () => {
    const checks: Check[] = [
      { name: 'cluster eu-1: reachable', status: 'ok', message: 'answers', fix: 'not shown' },
      { name: 'Redis', status: 'FAIL', message: 'not reachable', fix: 'start it' },
    ];
    expect(formatChecks(checks).split('\n')).toEqual([
      'ok    cluster eu-1: reachable: answers',
      'FAIL  Redis: not reachable',
      '      -> start it',
      '2 check(s): 1 failed, 0 warning(s)',
    ]);
    expect(hasFailure(checks)).toBe(true);
  });
});
