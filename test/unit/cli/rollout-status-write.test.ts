// `fleetq rollout approve|retry` write the status with the resourceVersion read as a precondition; a conflict
// (409: the planner wrote in between) reads again and decides again from what it reads, a few times at most. The
// apiserver here is a stand-in that answers as kube-apiserver does for the two requests involved (GET, and a merge
// patch refused with 409 when its resourceVersion is stale); rollout-cli.test.ts runs the commands on a real one.
import { describe, expect, it, jest } from '@jest/globals';
import { approvalChange, retryChange, writeStatus, type Hub } from '../../../functions/cli/rollout-run.js';
import { ApiError } from '../../../shared/kube/errors.js';
import { CURRENT_REVISION, ledgerRollout, type RawRollout } from '../../helpers/rollouts/ledger-fixture.js';

const NOW = Date.now();

/** An object store of one FleetRollout: GET returns it; PATCH /status applies when resourceVersion matches. */
function apiserver(initial: RawRollout, o: { readonly writeBetween?: (obj: RawRollout) => void; times?: number }) {
  let obj: RawRollout = { ...initial, metadata: { ...initial.metadata, resourceVersion: '1' } };
  let between = o.times ?? 0;
  const patches: Array<{ resourceVersion: unknown; status: Record<string, unknown> }> = [];
  const request = jest.fn(async (method: string, path: string, req?: { body?: unknown }): Promise<unknown> => {
    if (method === 'GET') {
      const read = structuredClone(obj);
      if (between > 0) {
        // Another writer gets in after this read: the next write of what was read conflicts.
        between -= 1;
        o.writeBetween?.(obj);
        obj.metadata.resourceVersion = String(Number(obj.metadata.resourceVersion) + 1);
      }
      return read;
    }
    const body = req?.body as { metadata: { resourceVersion: unknown }; status: Record<string, unknown> };
    patches.push({ resourceVersion: body.metadata.resourceVersion, status: body.status });
    if (body.metadata.resourceVersion !== obj.metadata.resourceVersion)
      throw new ApiError(409, method, path, 'Conflict', '{"reason":"Conflict"}');
    obj = { ...obj, status: { ...obj.status, ...body.status } };
    return obj;
  });
  const hub: Hub = { name: 'hub-1', rest: { request: request as Hub['rest']['request'] } };
  return { hub, patches, current: () => obj };
}

describe('the status writes of fleetq rollout', () => {
  it('a conflict reads again and decides from the new object: the approval lands next to the one written between', async () => {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const server = apiserver(ledgerRollout('web', 'fleetq-system', NOW), {
      times: 1,
      writeBetween: (obj) => {
        obj.status = { ...obj.status, phase: 'WaitingForApproval' };
      },
    });
    await writeStatus(server.hub, 'fleetq-system', 'web', approvalChange(undefined));
    log.mockRestore();
    expect(server.patches.map((p) => p.resourceVersion)).toEqual(['1', '2']);
    expect(server.current().status.phase).toBe('WaitingForApproval');
    const approvals = server.current().status.approvals as Array<{ revision: string; wave: string }>;
    expect(approvals.map((a) => [a.revision, a.wave])).toEqual([
      ['7b6c5d4e3', 'rest'],
      [CURRENT_REVISION, 'rest'],
    ]);
  });

  it('a refusal after a conflict is a refusal: another operator approved the wave in between, so nothing more is written', async () => {
    const server = apiserver(ledgerRollout('web', 'fleetq-system', NOW), {
      times: 1,
      writeBetween: (obj) => {
        const approvals = (obj.status.approvals as unknown[]) ?? [];
        obj.status = {
          ...obj.status,
          approvals: [...approvals, { revision: CURRENT_REVISION, wave: 'rest', at: new Date(NOW).toISOString() }],
        };
      },
    });
    await expect(writeStatus(server.hub, 'fleetq-system', 'web', approvalChange(undefined))).rejects.toThrow(
      'no wave waits for an approval; rest already approved',
    );
    expect(server.patches).toHaveLength(1);
  });

  it('gives up after 5 conflicts in a row, saying so', async () => {
    const server = apiserver(ledgerRollout('web', 'fleetq-system', NOW, { stopped: true }), { times: 10 });
    await expect(writeStatus(server.hub, 'fleetq-system', 'web', retryChange)).rejects.toThrow(
      'FleetRollout fleetq-system/web: the status changed under each of 5 writes; try again',
    );
    expect(server.patches).toHaveLength(5);
    expect(server.current().status.retry).toBeUndefined();
  });
});
