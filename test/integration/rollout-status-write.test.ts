// `fleetq rollout approve|retry` write the status with the resourceVersion read as a precondition; a conflict
// (409: another writer got in between) reads again and decides again from what it reads, 5 times at most. Here on a
// real apiserver (sandbox cluster fleetq-1, the hub): writeStatus's client is a real KubeRest, and right after it
// reads the object another writer, with a client of its own, writes the status, so the apiserver refuses the patch
// of what was read with a real 409. The patches sent are recorded as they go out, with the apiserver's answer. The
// CRD is applied idempotently and left installed (other tests use it); each case has a namespace of its own.
import { afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { installCrds } from '../../infra/sandbox/crds.js';
import { approvalChange, retryChange, writeStatus, type Hub } from '../../functions/cli/rollout-run.js';
import { ApiError } from '../../shared/kube/errors.js';
import { KubeRest, NO_RATE_LIMIT, type RequestOptions } from '../../shared/kube/rest.js';
import {
  CURRENT_REVISION,
  ledgerRollout,
  PREVIOUS_REVISION,
  type RawRollout,
} from '../helpers/rollouts/ledger-fixture.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CRD_FILE = new URL('../../infra/k8s/fleetrollout-crd.yaml', import.meta.url);
const CLUSTER = 'fleetq-1';
const MERGE_PATCH = 'application/merge-patch+json';

type Stored = RawRollout & { metadata: { resourceVersion: string } };
type Status = Record<string, unknown>;
/** A status patch writeStatus sent: the resourceVersion it carried, and 'accepted' or the code it was refused with. */
type SentPatch = { resourceVersion: unknown; answer: 'accepted' | number | 'unanswered' };

describe('the status writes of fleetq rollout approve|retry, with another writer in between', () => {
  let cluster: TestCluster;
  /** The hub client writeStatus reads and patches through. */
  let rest: KubeRest;
  /** The other writer's own client (and the one that sets each case up). */
  let writer: KubeRest;
  let ns: { name: string; remove: () => Promise<void> };
  const path = (name = '') => `/apis/fleetq.dev/v1alpha1/namespaces/${ns.name}/fleetrollouts${name ? `/${name}` : ''}`;
  const read = (name: string) => writer.request<Stored>('GET', path(name));

  /** Creates the FleetRollout, then writes its ledger through the status subresource, as fleetq's planner does. */
  async function create(raw: RawRollout): Promise<Stored> {
    const { status, ...object } = raw;
    await writer.request('POST', path(), { body: object });
    return writer.request<Stored>('PATCH', `${path(raw.metadata.name)}/status`, {
      body: { status },
      contentType: MERGE_PATCH,
    });
  }

  /**
   * writeStatus's hub: the real client, except that after each of the first `times` reads of the object, before
   * writeStatus sees what it read, the other writer merge-patches the status with what `between` makes of that read.
   * `written`: the resourceVersion each of those writes made.
   */
  function hubWithWriterBetween(times: number, between: (read: Stored) => Status) {
    const sent: SentPatch[] = [];
    const written: string[] = [];
    let left = times;
    const request = async <T>(method: string, objectPath: string, o?: RequestOptions): Promise<T> => {
      if (method === 'PATCH') {
        const body = o?.body as { metadata?: { resourceVersion?: unknown } } | undefined;
        const patch: SentPatch = { resourceVersion: body?.metadata?.resourceVersion, answer: 'unanswered' };
        sent.push(patch);
        try {
          const res = await rest.request<T>(method, objectPath, o);
          patch.answer = 'accepted';
          return res;
        } catch (err) {
          if (err instanceof ApiError) patch.answer = err.code;
          throw err;
        }
      }
      const res = await rest.request<T>(method, objectPath, o);
      if (method === 'GET' && left > 0) {
        left -= 1;
        const stored = await writer.request<Stored>('PATCH', `${objectPath}/status`, {
          body: { status: between(res as Stored) },
          contentType: MERGE_PATCH,
        });
        written.push(stored.metadata.resourceVersion);
      }
      return res;
    };
    const hub: Hub = { name: CLUSTER, rest: { request } };
    return { hub, sent, written };
  }

  beforeAll(async () => {
    cluster = await sandboxCluster(CLUSTER);
    rest = new KubeRest(CLUSTER, cluster.kc, NO_RATE_LIMIT);
    writer = new KubeRest(CLUSTER, cluster.kc, NO_RATE_LIMIT);
    await installCrds(cluster.kc, [CRD_FILE]);
  }, 120_000);

  beforeEach(async () => {
    ns = await testNamespace(cluster.kc);
  });

  afterEach(async () => {
    await ns?.remove();
  });

  it('a conflict reads again and decides from the new object: the approval lands next to the phase written between', async () => {
    const created = await create(ledgerRollout('web', ns.name, Date.now()));
    const { hub, sent, written } = hubWithWriterBetween(1, () => ({ phase: 'WaitingForApproval' }));
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    let printed: unknown[];
    try {
      await writeStatus(hub, ns.name, 'web', approvalChange(undefined));
    } finally {
      printed = log.mock.calls.map((args) => args[0]);
      log.mockRestore();
    }
    expect(printed).toEqual([`FleetRollout ${ns.name}/web: wave rest approved for revision ${CURRENT_REVISION}`]);
    expect(written).toHaveLength(1);
    expect(written[0]).not.toBe(created.metadata.resourceVersion);
    expect(sent).toEqual([
      { resourceVersion: created.metadata.resourceVersion, answer: 409 },
      { resourceVersion: written[0], answer: 'accepted' },
    ]);
    const after = await read('web');
    expect(after.status.phase).toBe('WaitingForApproval');
    const approvals = after.status.approvals as Array<{ revision: string; wave: string }>;
    expect(approvals.map((a) => [a.revision, a.wave])).toEqual([
      [PREVIOUS_REVISION, 'rest'],
      [CURRENT_REVISION, 'rest'],
    ]);
    expect(after.status.revisions).toEqual(created.status.revisions);
  }, 60_000);

  it('a refusal after a conflict is a refusal: another operator approved the wave in between, so nothing more is written', async () => {
    const created = await create(ledgerRollout('web', ns.name, Date.now()));
    const otherApproval = { revision: CURRENT_REVISION, wave: 'rest', at: new Date().toISOString() };
    const { hub, sent, written } = hubWithWriterBetween(1, (r) => ({
      approvals: [...((r.status.approvals as unknown[] | undefined) ?? []), otherApproval],
    }));
    await expect(writeStatus(hub, ns.name, 'web', approvalChange(undefined))).rejects.toThrow(
      `FleetRollout ${ns.name}/web: no wave waits for an approval; rest already approved for revision ${CURRENT_REVISION}`,
    );
    expect(sent).toEqual([{ resourceVersion: created.metadata.resourceVersion, answer: 409 }]);
    const after = await read('web');
    expect(after.metadata.resourceVersion).toBe(written[0]);
    expect(after.status.approvals).toEqual([...(created.status.approvals as unknown[]), otherApproval]);
  }, 60_000);

  it('gives up after 5 conflicts in a row, saying so, and writes no retry', async () => {
    const created = await create(ledgerRollout('web', ns.name, Date.now(), { stopped: true }));
    // The other writer is the planner recording, on each pass, a newer generation of the target it saw in us-2.
    const newerGenerationInUs2 = (r: Stored): Status => {
      const revisions = structuredClone(r.status.revisions) as Array<{
        clusters: Array<{ cluster: string; observedGeneration?: number }>;
      }>;
      const us2 = revisions.at(-1)?.clusters.find((c) => c.cluster === 'us-2');
      if (us2?.observedGeneration === undefined) throw new Error('the fixture has no observedGeneration for us-2');
      us2.observedGeneration += 1;
      return { revisions };
    };
    const { hub, sent, written } = hubWithWriterBetween(5, newerGenerationInUs2);
    await expect(writeStatus(hub, ns.name, 'web', retryChange)).rejects.toThrow(
      `FleetRollout ${ns.name}/web: the status changed under each of 5 writes; try again`,
    );
    expect(written).toHaveLength(5);
    expect(new Set([created.metadata.resourceVersion, ...written]).size).toBe(6);
    expect(sent).toEqual(
      [created.metadata.resourceVersion, ...written.slice(0, 4)].map((resourceVersion) => ({
        resourceVersion,
        answer: 409,
      })),
    );
    const after = await read('web');
    expect(after.metadata.resourceVersion).toBe(written[4]);
    expect(after.status.retry).toBeUndefined();
    const us2 = (after.status.revisions as Array<{ clusters: Array<{ cluster: string; observedGeneration?: number }> }>)
      .at(-1)
      ?.clusters.find((c) => c.cluster === 'us-2');
    expect(us2?.observedGeneration).toBe(4 + 5); // the fixture's 4, and the other writer's 5 passes
  }, 60_000);
});
