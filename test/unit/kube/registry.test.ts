import { describe, expect, it } from '@jest/globals';
import { DEFAULT_OWNED_KINDS } from '../../../shared/kube/kinds.js';
import { DEFAULT_LIMITS, RegistryError, parseRegistry } from '../../../shared/kube/registry.js';

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
  ])('names the field for $name', ({ yaml, field }) => {
    expect(() => parseRegistry(yaml, 'fleet.yaml')).toThrow(RegistryError);
    expect(() => parseRegistry(yaml, 'fleet.yaml')).toThrow(
      new RegExp(`fleet\\.yaml: invalid cluster registry\\n  ${field.replace(/[[\].]/g, '\\$&')}: `),
    );
  });

  it('reports YAML syntax errors with the file name', () => {
    expect(() => parseRegistry('clusters: [', 'broken.yaml')).toThrow(/^broken\.yaml: not valid YAML/);
  });
});
