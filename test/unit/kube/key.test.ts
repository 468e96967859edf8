import { describe, expect, it } from '@jest/globals';
import { MalformedKeyError, keyString, parseKey } from '../../../shared/kube/key.js';

describe('reconcile keys', () => {
  it.each([
    {
      name: 'namespaced',
      key: { cluster: 'eu-1', kind: 'Deployment', namespace: 'web', name: 'api' },
      text: 'eu-1/Deployment/web/api',
    },
    {
      name: 'cluster-scoped',
      key: { cluster: 'eu-1', kind: 'Node', namespace: '', name: 'n1' },
      text: 'eu-1/Node//n1',
    },
    {
      name: 'dotted name',
      key: { cluster: 'c', kind: 'ConfigMap', namespace: 'ns', name: 'a.b-c' },
      text: 'c/ConfigMap/ns/a.b-c',
    },
  ])('round-trips a $name key', ({ key, text }) => {
    expect(keyString(key)).toBe(text);
    expect(parseKey(text)).toEqual(key);
  });

  it.each([
    { name: 'too few parts', raw: 'c/Deployment/web', reason: /want 4/ },
    { name: 'empty name', raw: 'c/Deployment/web/', reason: /name "" is not a valid name/ },
    { name: 'JSON instead of a key', raw: '{"cluster":"c"}', reason: /want 4/ },
    { name: 'space in cluster', raw: 'c x/Deployment/web/a', reason: /cluster "c x"/ },
  ])('rejects $name', ({ raw, reason }) => {
    expect(() => parseKey(raw)).toThrow(MalformedKeyError);
    expect(() => parseKey(raw)).toThrow(reason);
  });
});
