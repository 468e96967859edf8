// resourcePath: every segment from data is a valid Kubernetes name before it reaches a request path.
import { describe, expect, it } from '@jest/globals';
import { TerminalError } from '../../../shared/kube/errors.js';
import { InvalidPathSegmentError, resourceOf, resourcePath } from '../../../shared/kube/resources.js';

describe('resourcePath', () => {
  it.each([
    { kind: 'Pod', ns: 'team-a', name: 'web-1', sub: undefined, want: '/api/v1/namespaces/team-a/pods/web-1' },
    { kind: 'Pod', ns: 'team-a', name: undefined, sub: undefined, want: '/api/v1/namespaces/team-a/pods' },
    { kind: 'Pod', ns: undefined, name: undefined, sub: undefined, want: '/api/v1/pods' },
    { kind: 'Pod', ns: '', name: undefined, sub: undefined, want: '/api/v1/pods' },
    {
      kind: 'ReplicaSet',
      ns: 'a',
      name: 'web.v2',
      sub: 'status',
      want: '/apis/apps/v1/namespaces/a/replicasets/web.v2/status',
    },
    { kind: 'Namespace', ns: '', name: 'team-a', sub: undefined, want: '/api/v1/namespaces/team-a' },
    { kind: 'Node', ns: 'ignored', name: 'node-1.example', sub: undefined, want: '/api/v1/nodes/node-1.example' },
  ])('$kind $ns/$name/$sub → $want', ({ kind, ns, name, sub, want }) => {
    expect(resourcePath(resourceOf(kind), ns, name, sub)).toBe(want);
  });

  it.each([
    { what: 'a namespace of ..', ns: '..', name: 'x', sub: undefined },
    { what: 'a namespace with a slash', ns: 'a/b', name: 'x', sub: undefined },
    { what: 'an encoded dot-dot namespace', ns: '%2e%2e', name: 'x', sub: undefined },
    { what: 'an upper-case namespace', ns: 'Team', name: 'x', sub: undefined },
    { what: 'a namespace with a dot (not a label)', ns: 'a.b', name: 'x', sub: undefined },
    { what: 'a name of ..', ns: 'a', name: '..', sub: undefined },
    { what: 'a name of .', ns: 'a', name: '.', sub: undefined },
    { what: 'a name with a slash', ns: 'a', name: '../../kube-system/configmaps/x', sub: undefined },
    { what: 'a name with a query', ns: 'a', name: 'x?dryRun=All', sub: undefined },
    { what: 'an empty name', ns: 'a', name: '', sub: undefined },
    { what: 'a name of 254 characters', ns: 'a', name: 'x'.repeat(254), sub: undefined },
    { what: 'a subresource fleetq does not write', ns: 'a', name: 'x', sub: '../../x' },
  ])('refuses $what, before any request', ({ ns, name, sub }) => {
    const call = () => resourcePath(resourceOf('ConfigMap'), ns, name, sub);
    expect(call).toThrow(InvalidPathSegmentError);
    expect(call).toThrow(TerminalError);
    expect(call).toThrow(/is not a valid name; no request made/);
  });

  it('a Namespace name must be a label (no dots)', () => {
    expect(() => resourcePath(resourceOf('Namespace'), '', 'a.b')).toThrow(InvalidPathSegmentError);
  });
});
