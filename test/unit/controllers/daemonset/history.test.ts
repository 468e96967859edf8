// ControllerRevision history: the revision data (getPatch: the template with "$patch":"replace", keys sorted,
// Go's escaping), the snapshot of a new template, revision numbers (max old + 1; a reused revision raised),
// dedup of several current revisions, cleanup beyond revisionHistoryLimit sparing revisions pods still carry,
// a name collision (collisionCount raised), unlabelled revisions labelled.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { ControllerRevision, DaemonSet } from '../../../../shared/kube/api/objects.js';
import { revisionData, snapshot, templateHash } from '../../../../shared/controllers/daemonset/history.js';
import { planDaemonSet } from '../../../../shared/controllers/daemonset/plan.js';
import { aDaemonSet, aNode, aPod, currentRevision, NOW, observed } from './builders.js';
import { summarize } from './summary.js';

const n1 = aNode('n1');
const v = (image: string) => aDaemonSet({ image });
const rev = (image: string, revision: number): ControllerRevision => {
  const cr = currentRevision(v(image), revision);
  return { ...cr, metadata: { ...cr.metadata, uid: `uid-${image}` } };
};
const historyOf = (actions: string[]) =>
  actions.filter((a) => /ControllerRevision|^status .*collision|^patch Pod/.test(a));

describe('revision data', () => {
  it('is byte for byte what kube-controller-manager v1.37.2 wrote (captured: HTML characters, é, U+2028, quantities)', () => {
    const golden = JSON.parse(readFileSync(new URL('./fixtures/upstream-revision.json', import.meta.url), 'utf8')) as {
      daemonSet: DaemonSet;
      revisionData: string;
      hash: string;
    };
    expect(revisionData(golden.daemonSet)).toBe(golden.revisionData);
    expect(templateHash(golden.daemonSet)).toBe(golden.hash);
  });

  it('is the template under spec with $patch replace, keys sorted, HTML characters escaped as Go does', () => {
    const ds = aDaemonSet({ spec: { containers: [{ name: 'c', image: 'a&b', command: ['<x>'] }] } });
    expect(revisionData(ds)).toBe(
      '{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"agent"}},' +
        '"spec":{"containers":[{"command":["\\u003cx\\u003e"],"image":"a\\u0026b","name":"c"}]}}}}',
    );
  });

  it('the snapshot: name <ds>-<hash>, template labels + hash label, controller reference, revision', () => {
    const ds = aDaemonSet();
    const hash = templateHash(ds);
    expect(snapshot(ds, 3)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: `agent-${hash}`,
        namespace: 'ns',
        labels: { app: 'agent', 'controller-revision-hash': hash },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: 'agent',
            uid: 'uid-ds',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: JSON.parse(revisionData(ds)),
      revision: 3,
    });
  });

  it('the hash follows collisionCount', () => {
    expect(templateHash(aDaemonSet({ status: { collisionCount: 1 } }))).not.toBe(templateHash(aDaemonSet()));
  });
});

describe('history in a pass', () => {
  it.each([
    {
      name: 'no revision: the current one is created as revision 1, first of the pass',
      ds: v('agent:1'),
      revisions: [],
      first: true,
      want: [`create ControllerRevision agent-${templateHash(v('agent:1'))} revision 1`],
    },
    {
      name: 'a new template after revisions 1 and 2: revision 3',
      ds: v('agent:3'),
      revisions: [rev('agent:1', 1), rev('agent:2', 2)],
      first: true,
      want: [`create ControllerRevision agent-${templateHash(v('agent:3'))} revision 3`],
    },
    {
      name: 'back to an old template: its revision is raised past the others (rollback)',
      ds: v('agent:1'),
      revisions: [rev('agent:1', 1), rev('agent:2', 2)],
      first: false,
      want: [`update ControllerRevision agent-${templateHash(v('agent:1'))} revision 3`],
    },
    {
      name: 'the current revision is the newest: nothing',
      ds: v('agent:2'),
      revisions: [rev('agent:1', 1), rev('agent:2', 2)],
      first: false,
      want: [],
    },
    {
      name: 'beyond revisionHistoryLimit 1: 3 old − 1 = 2 deleted, oldest first, sparing revision 1 (a pod carries it)',
      ds: aDaemonSet({ image: 'agent:4', revisionHistoryLimit: 1 }),
      revisions: [
        rev('agent:1', 1),
        rev('agent:2', 2),
        rev('agent:3', 3),
        currentRevision(aDaemonSet({ image: 'agent:4', revisionHistoryLimit: 1 }), 4),
      ],
      first: false,
      want: [
        `delete ControllerRevision agent-${templateHash(v('agent:2'))}`,
        `delete ControllerRevision agent-${templateHash(v('agent:3'))}`,
      ],
    },
  ])('$name', ({ ds, revisions, first, want }) => {
    // a pod of agent:1 on n1 keeps revision 1 live
    const pod = aPod(ds, 'n1', { hash: templateHash(v('agent:1')), readyFor: 60 });
    const { actions } = summarize(planDaemonSet(observed(ds, [n1], [pod], revisions), NOW));
    expect(historyOf(actions)).toEqual(want);
    if (first) expect(actions[0]).toBe(want[0]);
  });

  it('two revisions match the template: the higher kept, pods relabelled, the other deleted', () => {
    const ds = v('agent:1');
    const a = rev('agent:1', 1);
    const b = {
      ...rev('agent:1', 2),
      metadata: {
        ...rev('agent:1', 2).metadata,
        name: 'agent-other',
        uid: 'uid-other',
        labels: { app: 'agent', 'controller-revision-hash': 'other' },
      },
    };
    const pod = aPod(ds, 'n1', { readyFor: 60 });
    const { actions } = summarize(planDaemonSet(observed(ds, [n1], [pod], [a, b]), NOW));
    expect(historyOf(actions)).toEqual([
      `patch Pod ${pod.metadata?.name} {"metadata":{"labels":{"controller-revision-hash":"other"},"uid":"${pod.metadata?.uid}"}}`,
      `delete ControllerRevision ${a.metadata?.name}`,
    ]);
  });

  it('a revision without the hash label is labelled with its name', () => {
    const ds = v('agent:1');
    const cr = rev('agent:1', 1);
    const unlabelled = { ...cr, metadata: { ...cr.metadata, labels: { app: 'agent' } } };
    const { actions } = summarize(planDaemonSet(observed(ds, [n1], [], [unlabelled]), NOW));
    expect(historyOf(actions)).toEqual([`update ControllerRevision ${cr.metadata?.name} revision 1`]);
  });

  it("the name is another revision's with other data: collisionCount raised, nothing else", () => {
    const ds = v('agent:2');
    const taken = {
      ...rev('agent:1', 1),
      metadata: { ...rev('agent:1', 1).metadata, name: `agent-${templateHash(ds)}` },
    };
    const result = planDaemonSet({ ...observed(ds, [n1], [], [rev('agent:1', 1)]), nameTaken: taken }, NOW);
    expect(result.requeueAfter).toBe(0);
    expect(result.actions).toHaveLength(1);
    expect(result.actions[0]).toMatchObject({ type: 'updateStatus', object: { status: { collisionCount: 1 } } });
  });
});
