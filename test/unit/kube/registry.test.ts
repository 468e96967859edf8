import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ALL_KINDS, DEFAULT_OWNED_KINDS } from '../../../shared/kube/kinds.js';
import {
  ClusterRegistry,
  DEFAULT_LIMITS,
  RegistryError,
  parseRegistry,
  servedKinds,
} from '../../../shared/kube/registry.js';

describe('parseRegistry', () => {
  it('reads clusters with defaults applied and paths made absolute', () => {
    const clusters = parseRegistry(
      [
        'defaults:',
        '  owns: [Deployment, ReplicaSet]',
        '  limits: { qps: 50 }',
        'clusters:',
        '  - name: eu-1',
        '    kubeconfig: kc/eu-1.yaml',
        '    context: admin',
        '  - name: us-1',
        '    server: https://10.1.2.3:6443',
        '    tokenFile: /etc/fleetq/us-1.token',
        '    owns: [Job]',
        '    limits: { concurrency: 4, burst: 80 }',
      ].join('\n'),
      'fleet.yaml',
      '/etc/fleetq',
    );
    expect(clusters).toEqual([
      {
        name: 'eu-1',
        owns: ['Deployment', 'ReplicaSet'],
        limits: { ...DEFAULT_LIMITS, qps: 50 },
        connection: { type: 'kubeconfig', path: '/etc/fleetq/kc/eu-1.yaml', context: 'admin' },
      },
      {
        name: 'us-1',
        owns: ['Job'],
        limits: { qps: 50, burst: 80, concurrency: 4 },
        connection: {
          type: 'token',
          server: 'https://10.1.2.3:6443',
          tokenFile: '/etc/fleetq/us-1.token',
          caFile: undefined,
          insecureSkipTLSVerify: false,
        },
      },
    ]);
  });

  it("gives each controller kube-controller-manager's client budget (20/30) and no cluster cap when nothing says otherwise", () => {
    const [c] = parseRegistry('clusters: [{ name: a, kubeconfig: /k }]', 'x.yaml');
    expect(c?.limits).toEqual({ qps: 20, burst: 30 });
    expect(c?.limits.cluster).toBeUndefined();
  });

  it('reads the cluster cap (clusterQps, clusterBurst) from the entry or the defaults; its burst defaults from its qps', () => {
    const clusters = parseRegistry(
      [
        'defaults:',
        '  limits: { clusterQps: 50 }',
        'clusters:',
        '  - { name: a, kubeconfig: /k }',
        '  - { name: b, kubeconfig: /k, limits: { qps: 5, clusterBurst: 80 } }',
        '  - { name: c, kubeconfig: /k, limits: { clusterQps: 2.5 } }',
      ].join('\n'),
      'fleet.yaml',
    );
    expect(clusters.map((c) => c.limits)).toEqual([
      { qps: 20, burst: 30, cluster: { qps: 50, burst: 50 } },
      { qps: 5, burst: 30, cluster: { qps: 50, burst: 80 } },
      { qps: 20, burst: 30, cluster: { qps: 2.5, burst: 3 } },
    ]);
  });

  it('refuses clusterBurst without clusterQps, naming the field', () => {
    expect(() =>
      parseRegistry('clusters: [{ name: a, kubeconfig: /k, limits: { clusterBurst: 10 } }]', 'fleet.yaml'),
    ).toThrow(/clusters\[0\]\.limits\.clusterBurst: clusterBurst is the burst of the cap clusterQps sets/);
    expect(() =>
      parseRegistry('defaults: { limits: { clusterBurst: 10 } }\nclusters: [{ name: a, kubeconfig: /k }]', 'f.yaml'),
    ).toThrow(/defaults\.limits\.clusterBurst: /);
  });

  it('owns the kinds fleetq has controllers for when nothing says otherwise', () => {
    const [c] = parseRegistry('clusters: [{ name: a, kubeconfig: /k }]', 'x.yaml');
    expect(c?.owns).toEqual(DEFAULT_OWNED_KINDS);
  });

  it.each([
    {
      name: 'an unknown kind',
      yaml: 'clusters: [{ name: a, kubeconfig: /k, owns: [Deploymnet] }]',
      field: 'clusters[0].owns[0]',
    },
    { name: 'a bad cluster name', yaml: 'clusters: [{ name: Not_OK, kubeconfig: /k }]', field: 'clusters[0].name' },
    { name: 'no way to connect', yaml: 'clusters: [{ name: a }]', field: 'clusters[0].kubeconfig' },
    {
      name: 'a server without token file',
      yaml: 'clusters: [{ name: a, server: "https://h:1" }]',
      field: 'clusters[0].tokenFile',
    },
    { name: 'an unknown field', yaml: 'clusters: [{ name: a, kubeconfig: /k, kubeconfg: /x }]', field: 'clusters[0]' },
    {
      name: 'a negative qps',
      yaml: 'clusters: [{ name: a, kubeconfig: /k, limits: { qps: -1 } }]',
      field: 'clusters[0].limits.qps',
    },
    {
      name: 'a duplicate name',
      yaml: 'clusters: [{ name: a, kubeconfig: /k }, { name: a, kubeconfig: /j }]',
      field: 'clusters[1].name',
    },
    { name: 'no clusters', yaml: 'clusters: []', field: 'clusters' },
    {
      name: 'a kind that cannot be handed over one by one',
      yaml: 'clusters: [{ name: a, kubeconfig: /k, handOver: [Deployment] }]',
      field: 'clusters[0].handOver[0]',
    },
  ])('names the field for $name', ({ yaml, field }) => {
    expect(() => parseRegistry(yaml, 'fleet.yaml')).toThrow(RegistryError);
    expect(() => parseRegistry(yaml, 'fleet.yaml')).toThrow(
      new RegExp(`fleet\\.yaml: invalid cluster registry\\n  ${field.replace(/[[\].]/g, '\\$&')}: `),
    );
  });

  it('refuses an unknown kind in owns naming the known ones, and a kind that cannot be handed over naming those that can', () => {
    expect(ALL_KINDS).toContain('StatefulSet');
    const yaml = 'clusters: [{ name: a, kubeconfig: /k, owns: [Deployment, JobSett], handOver: [ReplicaSet] }]';
    expect(() => parseRegistry(yaml, 'fleet.yaml')).toThrow(
      'fleet.yaml: invalid cluster registry\n' +
        `  clusters[0].owns[1]: unknown kind "JobSett"; the known kinds are ${ALL_KINDS.join(', ')}\n` +
        '  clusters[0].handOver[0]: "ReplicaSet" cannot be handed over one object at a time; only Job can',
    );
  });

  it('hands Jobs over one by one where asked (per cluster, else from defaults); an owned kind is not handed over', () => {
    const yaml = [
      'defaults: { handOver: [Job] }',
      'clusters:',
      '  - { name: a, kubeconfig: /k, owns: [Deployment, ReplicaSet] }',
      '  - { name: b, kubeconfig: /k, owns: [Job] }',
      '  - { name: c, kubeconfig: /k, handOver: [] }',
    ].join('\n');
    const clusters = parseRegistry(yaml, 'x.yaml');
    expect(clusters.map((c) => c.handOver)).toEqual([['Job'], ['Job'], undefined]);
    const registry = new ClusterRegistry(clusters, () => undefined);
    expect(['a', 'b', 'c'].map((n) => registry.handsOver(n, 'Job'))).toEqual([true, false, false]);
    expect(servedKinds(clusters[0]!)).toEqual(['Deployment', 'ReplicaSet', 'Job']);
  });

  it('reports YAML syntax errors with the file name', () => {
    expect(() => parseRegistry('clusters: [', 'broken.yaml')).toThrow(/^broken\.yaml: not valid YAML/);
  });
});

describe('insecure connections need allowInsecure', () => {
  const token = (extra: string) => `clusters: [{ name: a, server: "SERVER", tokenFile: /t${extra} }]`;

  it.each([
    {
      name: 'an http:// server',
      yaml: token('').replace('SERVER', 'http://10.0.0.1:8080'),
      field: 'clusters[0].server',
      says: /http:\/\/ server sends the token in clear text; set allowInsecure: true/,
    },
    {
      name: 'insecureSkipTLSVerify',
      yaml: token(', insecureSkipTLSVerify: true').replace('SERVER', 'https://h:6443'),
      field: 'clusters[0].insecureSkipTLSVerify',
      says: /skips verifying the server's certificate; set allowInsecure: true/,
    },
    {
      name: 'insecureSkipTLSVerify with allowInsecure: false',
      yaml: token(', insecureSkipTLSVerify: true, allowInsecure: false').replace('SERVER', 'https://h:6443'),
      field: 'clusters[0].insecureSkipTLSVerify',
      says: /allowInsecure/,
    },
  ])('refuses $name, naming the field', ({ yaml, field, says }) => {
    expect(() => parseRegistry(yaml, 'fleet.yaml')).toThrow(
      new RegExp(`invalid cluster registry\\n  ${field.replace(/[[\].]/g, '\\$&')}: `),
    );
    expect(() => parseRegistry(yaml, 'fleet.yaml')).toThrow(says);
  });

  it.each([
    { name: 'http://', yaml: 'clusters: [{ name: a, server: "http://h:8080", tokenFile: /t, allowInsecure: true }]' },
    {
      name: 'insecureSkipTLSVerify',
      yaml: 'clusters: [{ name: a, server: "https://h:1", tokenFile: /t, insecureSkipTLSVerify: true, allowInsecure: true }]',
    },
  ])('accepts $name with allowInsecure: true, and warns when the connection is built', ({ yaml }) => {
    const clusters = parseRegistry(yaml, 'fleet.yaml');
    expect(clusters[0]?.allowInsecure).toBe(true);
    const warnings: Array<{ message: string; fields: Record<string, unknown> }> = [];
    const registry = new ClusterRegistry(clusters, (message, fields) => warnings.push({ message, fields }));
    registry.kubeConfig('a');
    expect(warnings).toEqual([
      {
        message: 'Insecure connection to cluster allowed by allowInsecure',
        fields: expect.objectContaining({ cluster: 'a' }),
      },
    ]);
  });

  it('a secure https connection warns about nothing', () => {
    const warnings: unknown[] = [];
    const registry = new ClusterRegistry(
      parseRegistry('clusters: [{ name: a, server: "https://h:1", tokenFile: /t }]', 'fleet.yaml'),
      (m) => warnings.push(m),
    );
    registry.kubeConfig('a');
    expect(warnings).toEqual([]);
  });

  describe('a kubeconfig that skips TLS verification or uses http://', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetq-registry-test-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const kubeconfig = (name: string, cluster: string): string => {
      const path = join(dir, `${name}.yaml`);
      writeFileSync(
        path,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters: [{ name: c, cluster: { CLUSTER } }]'.replace('CLUSTER', cluster),
          'users: [{ name: u, user: { token: t } }]',
          'contexts: [{ name: x, context: { cluster: c, user: u } }]',
          'current-context: x',
        ].join('\n'),
      );
      return path;
    };

    it.each([
      { name: 'insecure-skip-tls-verify', cluster: 'server: "https://h:1", insecure-skip-tls-verify: true' },
      { name: 'http', cluster: 'server: "http://h:8080"' },
    ])('$name: refused without allowInsecure, allowed (with a warning) with it', ({ name, cluster }) => {
      const path = kubeconfig(name, cluster);
      const refused = new ClusterRegistry(parseRegistry(`clusters: [{ name: a, kubeconfig: ${path} }]`, 'f.yaml'));
      expect(() => refused.kubeConfig('a')).toThrow(RegistryError);
      expect(() => refused.kubeConfig('a')).toThrow(
        new RegExp(`cluster a: kubeconfig ${path} uses an insecure connection .*set allowInsecure: true`),
      );
      const warnings: unknown[] = [];
      const allowed = new ClusterRegistry(
        parseRegistry(`clusters: [{ name: a, kubeconfig: ${path}, allowInsecure: true }]`, 'f.yaml'),
        (m) => warnings.push(m),
      );
      expect(allowed.kubeConfig('a').getCurrentCluster()?.server).toMatch(/^http/);
      expect(warnings).toHaveLength(1);
    });
  });
});

describe('mirror policy', () => {
  it('is absent (the mirror may write nowhere) unless the registry gives one', () => {
    const [c] = parseRegistry('clusters: [{ name: a, kubeconfig: /k }]', 'x.yaml');
    expect(c?.mirror).toBeUndefined();
    expect(c?.owns).not.toContain('ConfigMap');
  });

  it('takes allowedNamespaces per cluster, else from defaults', () => {
    const clusters = parseRegistry(
      [
        'defaults:',
        '  mirror: { allowedNamespaces: [shared] }',
        'clusters:',
        '  - { name: a, kubeconfig: /k, owns: [ConfigMap], mirror: { allowedNamespaces: [team-a, "apps-*"] } }',
        '  - { name: b, kubeconfig: /k, owns: [ConfigMap] }',
      ].join('\n'),
      'x.yaml',
    );
    expect(clusters.map((c) => c.mirror)).toEqual([
      { allowedNamespaces: ['team-a', 'apps-*'] },
      { allowedNamespaces: ['shared'] },
    ]);
  });

  it.each([
    { name: 'kube-system', ns: 'kube-system', says: /system namespaces are never mirror targets/ },
    { name: 'kube-public', ns: 'kube-public', says: /system namespaces/ },
    { name: 'kube-node-lease', ns: 'kube-node-lease', says: /system namespaces/ },
    { name: 'a path', ns: '../x', says: /must be a namespace name/ },
    { name: 'a bare *', ns: '"*"', says: /must be a namespace name/ },
    { name: 'upper case', ns: 'Team', says: /must be a namespace name/ },
  ])('refuses $name in allowedNamespaces, naming the field', ({ ns, says }) => {
    const yaml = `clusters: [{ name: a, kubeconfig: /k, mirror: { allowedNamespaces: [ok, ${ns}] } }]`;
    expect(() => parseRegistry(yaml, 'f.yaml')).toThrow(/clusters\[0\]\.mirror\.allowedNamespaces\[1\]: /);
    expect(() => parseRegistry(yaml, 'f.yaml')).toThrow(says);
  });
});

describe('labels and the hub', () => {
  it('keeps each cluster its labels (prefixed keys, empty values) and marks the hub', () => {
    const clusters = parseRegistry(
      [
        'clusters:',
        '  - { name: a, kubeconfig: /k, hub: true, labels: { env: prod, ring: "0", fleetq.dev/zone: eu-west_1.b } }',
        '  - { name: b, kubeconfig: /k, labels: { env: prod, canary: "" } }',
        '  - { name: c, kubeconfig: /k, hub: false, labels: {} }',
      ].join('\n'),
      'x.yaml',
    );
    expect(clusters.map((c) => [c.name, c.labels, c.hub])).toEqual([
      ['a', { env: 'prod', ring: '0', 'fleetq.dev/zone': 'eu-west_1.b' }, true],
      ['b', { env: 'prod', canary: '' }, undefined],
      ['c', undefined, undefined],
    ]);
  });

  it.each([
    {
      name: 'a value that is not a string',
      labels: '{ ring: 0 }',
      field: 'ring',
      says: /must be a string \(quote it: "0"\)/,
    },
    { name: 'a value over 63 characters', labels: `{ team: ${'a'.repeat(64)} }`, field: 'team', says: /at most 63/ },
    {
      name: 'a value with a space',
      labels: '{ team: "a b" }',
      field: 'team',
      says: /at most 63 characters, alphanumerics/,
    },
    { name: 'a value ending in a dash', labels: '{ team: a- }', field: 'team', says: /ending with an alphanumeric/ },
    {
      name: 'a key name over 63 characters',
      labels: `{ ${'k'.repeat(64)}: x }`,
      field: 'k'.repeat(64),
      says: /the name must be 1-63/,
    },
    {
      name: 'a key with an upper-case prefix',
      labels: '{ Fleetq.dev/ring: "1" }',
      field: 'Fleetq.dev/ring',
      says: /the prefix must be a lowercase DNS subdomain/,
    },
    { name: 'a key with an empty prefix', labels: '{ /ring: "1" }', field: '/ring', says: /the prefix must be/ },
    { name: 'a key with two slashes', labels: '{ a/b/c: "1" }', field: 'a/b/c', says: /the prefix must be/ },
    {
      name: 'a key with an empty name',
      labels: '{ fleetq.dev/: "1" }',
      field: 'fleetq.dev/',
      says: /the name must be 1-63/,
    },
  ])('refuses $name, naming the field', ({ labels, field, says }) => {
    const yaml = `clusters: [{ name: a, kubeconfig: /k, labels: ${labels} }]`;
    expect(() => parseRegistry(yaml, 'f.yaml')).toThrow(`\n  clusters[0].labels.${field}: `);
    expect(() => parseRegistry(yaml, 'f.yaml')).toThrow(says);
  });

  it('refuses labels that are not a map, and a hub that is not a boolean', () => {
    expect(() => parseRegistry('clusters: [{ name: a, kubeconfig: /k, labels: [env] }]', 'f.yaml')).toThrow(
      '\n  clusters[0].labels: must be a map of label keys to values',
    );
    expect(() => parseRegistry('clusters: [{ name: a, kubeconfig: /k, hub: yes }]', 'f.yaml')).toThrow(
      '\n  clusters[0].hub: must be true or false',
    );
  });

  it('refuses a second hub, naming both clusters', () => {
    const yaml = [
      'clusters:',
      '  - { name: a, kubeconfig: /k, hub: true }',
      '  - { name: b, kubeconfig: /k }',
      '  - { name: c, kubeconfig: /k, hub: true }',
    ].join('\n');
    expect(() => parseRegistry(yaml, 'f.yaml')).toThrow(
      'f.yaml: invalid cluster registry\n  clusters[2].hub: a and c both say hub: true; at most one cluster is the hub',
    );
  });
});
