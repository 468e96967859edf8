// The base kinds (Deployment, ReplicaSet, Job, CronJob) are conformance plug-ins like any other: the normalizer
// core names no kind. Their normalized form is the one the normalizer gave before they moved out of its core,
// byte for byte: fixtures/normalized-base-kinds.json was captured from that normalizer (on the sides built by
// base-kinds-snapshot.ts) before the move. A kind no plug-in lists is refused.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { emptySnapshot, pluginLists } from '../../helpers/conformance/client.js';
import { normalize, type NormalizedSide } from '../../helpers/conformance/normalize.js';
import { PLUGINS, pluginOf } from '../../helpers/conformance/plugins.js';
import type { Snapshot } from '../../helpers/conformance/types.js';
import { BASE_KINDS_EVENTS, baseKindsSnapshot, deploymentsOnlySnapshot, NS } from './base-kinds-snapshot.js';

const captured = JSON.parse(
  readFileSync(new URL('./fixtures/normalized-base-kinds.json', import.meta.url), 'utf8'),
) as Record<string, NormalizedSide>;

const empty: Snapshot = { at: 0, deployments: [], replicaSets: [], jobs: [], pods: [] };

describe('base kinds as conformance plug-ins', () => {
  it.each([
    { name: 'every base kind, with events', side: () => normalize(baseKindsSnapshot(), NS, BASE_KINDS_EVENTS) },
    {
      name: 'Deployments and ReplicaSets only, with events',
      side: () => normalize(deploymentsOnlySnapshot(), NS, BASE_KINDS_EVENTS),
    },
    { name: 'an empty side', side: () => normalize(empty, NS) },
  ])('normalize as before the move, byte for byte: $name', ({ name, side }) => {
    const want = captured[name];
    expect(want).toBeDefined();
    expect(JSON.stringify(side(), null, 2)).toBe(JSON.stringify(want, null, 2));
  });

  it('an empty snapshot holds every list polled always, and normalizes as an empty side', () => {
    expect(emptySnapshot()).toEqual({ at: 0, deployments: [], replicaSets: [], jobs: [], pods: [] });
    expect(JSON.stringify(normalize(emptySnapshot(), NS))).toBe(JSON.stringify(captured['an empty side']));
  });

  it('poll the base lists always, owners before what they own, then the created kinds', () => {
    const kinds = (created: string[]): string[] => pluginLists(new Set(created)).map((l) => l.kind);
    expect(kinds([])).toEqual(['Deployment', 'ReplicaSet', 'Job', 'Pod']);
    expect(kinds(['CronJob'])).toEqual(['Deployment', 'ReplicaSet', 'CronJob', 'Job', 'Pod']);
    expect(kinds(['StatefulSet', 'DaemonSet', 'CronJob'])).toEqual([
      'Deployment',
      'ReplicaSet',
      'CronJob',
      'Job',
      'Pod',
      'DaemonSet',
      'StatefulSet',
      'ControllerRevision',
    ]);
  });

  it('refuse a list whose kind has no plug-in, naming it and where to register one', () => {
    const widget = { metadata: { name: 'w', uid: 'w1' } };
    expect(() => normalize({ ...empty, custom: { Widget: [widget] } }, NS)).toThrow(
      'snapshot holds objects no conformance plug-in lists (kind Widget): register a plug-in for the kind in ' +
        'test/helpers/conformance/plugins.ts',
    );
    const withoutJob = PLUGINS.filter((p) => p.kind !== 'Job');
    expect(() => normalize(baseKindsSnapshot(), NS, [], withoutJob)).toThrow(
      'snapshot holds objects no conformance plug-in lists (field jobs)',
    );
    // Empty lists of an unregistered kind are no objects left out.
    expect(normalize({ ...empty, custom: { Widget: [] } }, NS).state).toEqual({
      deployments: {},
      replicaSets: {},
      pods: {},
    });
    expect(() => pluginOf('Widget')).toThrow(
      'no conformance plug-in for kind Widget (test/helpers/conformance/plugins.ts)',
    );
  });

  it('refuse a list ordered before a kind that is not polled', () => {
    const orphanList = [{ kind: 'Gadget', needs: [], lists: [{ kind: 'Gadget', before: 'Widget' }] }];
    expect(() => pluginLists(new Set(['Gadget']), orphanList)).toThrow(
      'conformance lists Gadget (before Widget): not listed',
    );
  });
});
