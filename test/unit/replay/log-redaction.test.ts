// Event-log redaction beyond Secrets and ConfigMaps: env values of every pod spec (Pods, workload templates,
// ControllerRevision data, a custom resource's templates) become keyed digests, kubectl's last-applied-configuration is dropped from every
// object. The digests keep what the planners compare: a Deployment's template still equals its ReplicaSet's,
// a DaemonSet's and a StatefulSet's still match their ControllerRevisions, and a changed value still differs.
import { describe, expect, it } from '@jest/globals';
import type { ControllerRevision, DaemonSet, PodTemplateSpec, StatefulSet } from '../../../shared/kube/api/objects.js';
import { matchesRevision, snapshot } from '../../../shared/controllers/daemonset/history.js';
import { equalIgnoreHash } from '../../../shared/controllers/deployment/replica-sets.js';
import { equalData, newRevision, revisionData } from '../../../shared/controllers/statefulset/history.js';
import { redactionPolicy } from '../../../shared/forwarder/forwarder-deps.js';
import type { LoggedEvent } from '../../../shared/queue/history/event-log.js';
import { loadConfig } from '../../../shared/runtime/config.js';
import {
  MAX_WALK_DEPTH,
  encodeRecord,
  redact,
  type RedactionPolicy,
} from '../../../shared/queue/history/log-record.js';

const T = Date.parse('2026-12-03T12:00:00Z');
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const SECRETS = ['hunter2', 'db-pass-0815', 'init-token-4711', 'debug-key-42'];

const event = (resource: string, object: unknown): LoggedEvent => ({
  type: 'ADDED',
  cluster: 'c1',
  resource,
  observedAt: T,
  object,
});

function template(password = 'hunter2'): PodTemplateSpec {
  return {
    metadata: { labels: { app: 'web' } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'app:1',
          env: [
            { name: 'DB_PASSWORD', value: password },
            { name: 'DB_URL', value: 'postgres://app:db-pass-0815@db:5432/app' },
            { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
            { name: 'EMPTY', value: '' },
          ],
        },
      ],
      initContainers: [{ name: 'init', image: 'init:1', env: [{ name: 'TOKEN', value: 'init-token-4711' }] }],
      ephemeralContainers: [{ name: 'debug', image: 'busybox', env: [{ name: 'KEY', value: 'debug-key-42' }] }],
    },
  };
}

const meta = (name: string) => ({
  name,
  namespace: 'ns',
  uid: `uid-${name}`,
  resourceVersion: '7',
  annotations: { [LAST_APPLIED]: JSON.stringify({ env: 'hunter2' }), keep: 'me' },
});

// The logged JSON, walked loosely: each holder says where its pod spec is.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

/** Every watched object that holds a pod spec, with the path to its container list. */
const HOLDERS: { kind: string; resource: string; object: Record<string, unknown>; spec: (o: Loose) => Loose }[] = [
  { kind: 'Pod', resource: 'pods', object: { metadata: meta('p'), spec: template().spec }, spec: (o) => o.spec },
  ...['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job'].map((kind) => ({
    kind,
    resource: `${kind.toLowerCase()}s`,
    object: { metadata: meta(kind.toLowerCase()), spec: { replicas: 1, template: template() } },
    spec: (o: Loose) => o.spec.template.spec,
  })),
  {
    kind: 'CronJob',
    resource: 'cronjobs',
    object: { metadata: meta('cj'), spec: { schedule: '* * * * *', jobTemplate: { spec: { template: template() } } } },
    spec: (o) => o.spec.jobTemplate.spec.template.spec,
  },
  {
    // A custom resource fleetq's log knows nothing of: its pod specs are found by their shape.
    kind: 'JobSet',
    resource: 'jobsets',
    object: {
      metadata: meta('js'),
      spec: {
        replicatedJobs: [
          { name: 'leader', replicas: 1, template: { spec: { template: { spec: { containers: [] } } } } },
          { name: 'workers', replicas: 2, template: { spec: { template: template() } } },
        ],
      },
    },
    spec: (o) => o.spec.replicatedJobs[1].template.spec.template.spec,
  },
  {
    kind: 'ControllerRevision',
    resource: 'controllerrevisions',
    object: { metadata: meta('cr'), revision: 1, data: { spec: { template: { ...template(), $patch: 'replace' } } } },
    spec: (o) => o.data.spec.template.spec,
  },
];

describe('event-log redaction of env values and last-applied', () => {
  it.each(HOLDERS)('$kind: env values and last-applied never reach the log', ({ kind, resource, object, spec }) => {
    const line = encodeRecord(event(resource, { kind, ...object }), 0) ?? '';
    for (const s of SECRETS) expect(line).not.toContain(s);
    expect(line).not.toContain(`"${LAST_APPLIED}":`);
    const logged = JSON.parse(line).object;
    expect(logged.metadata.annotations).toEqual({ keep: 'me' });
    expect(logged.fleetqRedacted).toEqual([`metadata.annotations.${LAST_APPLIED}`, 'env.value']);
    const env = spec(logged).containers[0].env;
    // Names and valueFrom kept; a value replaced by its marker; an empty value is no secret.
    expect(env.map((e: { name: string }) => e.name)).toEqual(['DB_PASSWORD', 'DB_URL', 'FROM_SECRET', 'EMPTY']);
    expect(env[0].value).toMatch(/^fleetq-redacted:[0-9a-f]{16}$/);
    expect(env[2]).toEqual({ name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } });
    expect(env[3]).toEqual({ name: 'EMPTY', value: '' });
    expect(spec(logged).initContainers[0].env[0].value).toMatch(/^fleetq-redacted:/);
    expect(spec(logged).ephemeralContainers[0].env[0].value).toMatch(/^fleetq-redacted:/);
    // The object given is not changed.
    expect(spec(object).containers[0].env[0].value).toBe('hunter2');
  });

  it('finds pod specs by resource when the object has no kind (a watch event of a typed list)', () => {
    const logged = redact(event('deployments', HOLDERS[1]!.object))?.object as Loose;
    expect(logged.spec.template.spec.containers[0].env[0].value).toMatch(/^fleetq-redacted:/);
  });

  it('a hostile, deeply nested object is walked only to MAX_WALK_DEPTH, without exhausting the stack', () => {
    let deep: Record<string, unknown> = { containers: [{ name: 'a', env: [{ name: 'X', value: 'hunter2' }] }] };
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const object = { kind: 'Widget', metadata: { name: 'w' }, spec: deep };
    expect(redact(event('widgets', object))?.object).toBe(object);
    let shallow: Record<string, unknown> = { containers: [{ name: 'a', env: [{ name: 'X', value: 'hunter2' }] }] };
    for (let i = 0; i < MAX_WALK_DEPTH - 2; i++) shallow = { d: shallow };
    const line = encodeRecord(event('widgets', { kind: 'Widget', metadata: { name: 'w' }, spec: shallow }), 0) ?? '';
    expect(line).not.toContain('hunter2');
    expect(line).toContain('fleetq-redacted:');
  });

  it('keeps an object without env values or last-applied as it is', () => {
    const pod = { kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', env: [{ name: 'X' }] }] } };
    expect(redact(event('pods', pod))?.object).toBe(pod);
  });

  it('digests are keyed and per cluster: the same value gives the same marker, another value or key another', () => {
    const value = (policy: RedactionPolicy, password = 'hunter2', cluster = 'c1') =>
      (redact({ ...event('pods', { kind: 'Pod', spec: template(password).spec }), cluster }, policy)?.object as Loose)
        .spec.containers[0].env[0].value;
    const key = { envDigestKey: 'k1' };
    expect(value(key)).toBe(value(key));
    expect(value(key, 'hunter3')).not.toBe(value(key));
    expect(value({ envDigestKey: 'k2' })).not.toBe(value(key));
    expect(value(key, 'hunter2', 'c2')).not.toBe(value(key));
  });
});

describe('replay decides on redacted templates as on live ones', () => {
  const logged = <T>(resource: string, o: T, policy: RedactionPolicy = { envDigestKey: 'k' }): T =>
    redact(event(resource, o), policy)?.object as T;

  it('a Deployment template equals its ReplicaSet template after redaction; a changed value still differs', () => {
    const d = { kind: 'Deployment', spec: { template: template() } };
    const rsTemplate = template();
    rsTemplate.metadata = { labels: { app: 'web', 'pod-template-hash': '5d4f8c7b9' } };
    const rs = { kind: 'ReplicaSet', spec: { template: rsTemplate } };
    const changed = { kind: 'ReplicaSet', spec: { template: template('hunter3') } };
    expect(equalIgnoreHash(logged('deployments', d).spec.template, logged('replicasets', rs).spec.template)).toBe(true);
    expect(equalIgnoreHash(logged('deployments', d).spec.template, logged('replicasets', changed).spec.template)).toBe(
      false,
    );
  });

  it("a DaemonSet still matches its ControllerRevision's data, and not an old revision's", () => {
    const ds = (password: string): DaemonSet => ({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'ds', namespace: 'ns', uid: 'u' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: template(password) },
    });
    const current = snapshot(ds('hunter2'), 2);
    const old = snapshot(ds('hunter1'), 1);
    const loggedDs = logged('daemonsets', ds('hunter2'));
    expect(matchesRevision(loggedDs, logged('controllerrevisions', current))).toBe(true);
    expect(matchesRevision(loggedDs, logged('controllerrevisions', old))).toBe(false);
  });

  it("a StatefulSet's revision data still equals its ControllerRevision's, and not an old one's", () => {
    const set = (password: string): StatefulSet => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'ns', uid: 'u' },
      spec: { selector: { matchLabels: { app: 'web' } }, serviceName: 'db', template: template(password) },
    });
    const stored: ControllerRevision = logged('controllerrevisions', newRevision(set('hunter2'), 1));
    const stale: ControllerRevision = logged('controllerrevisions', newRevision(set('hunter1'), 1));
    const replayed = revisionData(logged('statefulsets', set('hunter2')));
    expect(equalData(stored, replayed)).toBe(true);
    expect(equalData(stale, replayed)).toBe(false);
  });
});

describe('the forwarder redaction policy', () => {
  it('keys env digests with a key derived from the signing secret (never the secret itself)', () => {
    const secret = 'a-signing-secret-of-32-characters';
    const keyed = redactionPolicy(loadConfig({ FLEETQ_SIGNING_SECRET: secret }));
    expect(keyed.envDigestKey).toMatch(/^[0-9a-f]{64}$/);
    expect(keyed.envDigestKey).not.toContain(secret);
    expect(redactionPolicy(loadConfig({})).envDigestKey).toBeUndefined();
  });
});
