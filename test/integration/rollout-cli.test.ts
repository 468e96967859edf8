// `fleetq rollout` as a user runs it (functions/cli.ts as a process) against FleetRollouts on a real apiserver
// (sandbox cluster fleetq-1, the registry's hub): list and status print what the ledger says, -o json gives the
// ledger back as stored, pause/resume flip spec.paused, approve and retry write the status subresource (the right
// revision and wave; retry only of a stopped revision), --watch ends when the phase is terminal, and the refusals:
// no hub (exit 2), a FleetRollout that is not there (exit 1). The CRD is applied idempotently and left installed
// (other tests use it); everything else lives in a namespace of its own, removed afterwards.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { installCrds } from '../../infra/sandbox/crds.js';
import { KubeRest, NO_RATE_LIMIT } from '../../shared/kube/rest.js';
import { formatAge } from '../../shared/rollouts/format.js';
import { writeRegistry } from '../helpers/pipeline/fleet.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import {
  CURRENT_REVISION,
  ledgerRollout,
  PREVIOUS_REVISION,
  type RawRollout,
} from '../helpers/rollouts/ledger-fixture.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CRD_FILE = new URL('../../infra/k8s/fleetrollout-crd.yaml', import.meta.url);
const CLUSTER = 'fleetq-1';

type Stored = RawRollout & { metadata: { resourceVersion: string } };
type Run = { code: number | null; out: string; lines: string[] };

describe('fleetq rollout', () => {
  let hub: TestCluster;
  let rest: KubeRest;
  let ns: { name: string; remove: () => Promise<void> };
  let registry: string;
  let noHubRegistry: string;
  const path = (name = '') => `/apis/fleetq.dev/v1alpha1/namespaces/${ns.name}/fleetrollouts${name ? `/${name}` : ''}`;
  const read = (name: string) => rest.request<Stored>('GET', path(name));

  /** Creates the FleetRollout, then writes its ledger through the status subresource, as fleetq's planner does. */
  async function create(raw: RawRollout): Promise<Stored> {
    const { status, ...object } = raw;
    await rest.request('POST', path(), { body: object });
    return rest.request<Stored>('PATCH', `${path(raw.metadata.name)}/status`, {
      body: { status },
      contentType: 'application/merge-patch+json',
    });
  }

  function start(args: readonly string[]): Proc {
    return spawnTsx('functions/cli.ts', { FLEETQ_REGISTRY: '' }, `fleetq ${args.join(' ')}`, args);
  }
  async function fleetq(...args: string[]): Promise<Run> {
    const p = start(args);
    const code = await p.exited;
    return { code, out: p.lines.join('\n'), lines: p.lines };
  }
  const inHub = (...args: string[]) => fleetq(...args, '--registry', registry, '-n', ns.name);

  let progressing: Stored;
  let stopped: Stored;
  /** The fixture's "now": its ledger times are whole minutes before it. */
  let fixtureNow = 0;
  /**
   * How the CLI shows a ledger time `minutes` before the fixture's now, when it ran between `from` and `to` (a
   * loaded machine may take over a minute between the fixture and the CLI): either of the two ages.
   */
  const agesOf = (minutes: number, from: number, to: number): string[] => [
    ...new Set([from, to].map((t) => `${formatAge(t - (fixtureNow - minutes * 60_000))} ago`)),
  ];

  beforeAll(async () => {
    hub = await sandboxCluster(CLUSTER);
    rest = new KubeRest(CLUSTER, hub.kc, NO_RATE_LIMIT);
    await installCrds(hub.kc, [CRD_FILE]);
    ns = await testNamespace(hub.kc);
    registry = writeRegistry([{ name: CLUSTER, kubeconfig: hub.state.kubeconfig, hub: true, labels: { env: 'prod' } }]);
    noHubRegistry = writeRegistry([{ name: CLUSTER, kubeconfig: hub.state.kubeconfig }]);
    fixtureNow = Date.now();
    progressing = await create(ledgerRollout('web', ns.name, fixtureNow));
    stopped = await create(ledgerRollout('web-stopped', ns.name, fixtureNow, { stopped: true }));
  }, 120_000);

  afterAll(async () => {
    await ns?.remove();
  });

  it('list: one row per FleetRollout with target, revision, wave, phase and age; -A finds them too', async () => {
    const [own, all] = await Promise.all([
      inHub('rollout', 'list'),
      fleetq('rollout', 'list', '-A', '--registry', registry),
    ]);
    expect(own.code).toBe(0);
    const rows = own.lines.map((l) => l.trim().split(/\s{2,}/));
    expect(rows[0]).toEqual(['NAMESPACE', 'NAME', 'TARGET', 'REVISION', 'WAVE', 'PHASE', 'AGE']);
    expect(rows.slice(1).map((r) => r.slice(0, 6))).toEqual([
      [ns.name, 'web', 'Deployment/shop/web', CURRENT_REVISION, 'canary', 'Progressing'],
      [ns.name, 'web-stopped', 'Deployment/shop/web', CURRENT_REVISION, '-', 'RolledBack'],
    ]);
    for (const r of rows.slice(1)) expect(r[6]).toMatch(/^\d+(ms|s|m)$/);
    expect(all.code).toBe(0);
    expect(all.lines.filter((l) => l.startsWith(`${ns.name} `))).toHaveLength(2);
  }, 60_000);

  it('status: the progress view per wave and cluster; -o json gives the stored ledger back', async () => {
    const from = Date.now();
    const [text, json] = await Promise.all([
      inHub('rollout', 'status', 'web'),
      inHub('rollout', 'status', 'web', '-o', 'json'),
    ]);
    const to = Date.now();
    expect(text.code).toBe(0);
    expect(text.out).toContain(`Rollout:   ${ns.name}/web`);
    expect(text.out).toContain('Phase:     Progressing');
    expect(text.out).toContain(`Revision:  ${CURRENT_REVISION} (attempt 1, started`);
    const row = (cluster: string) =>
      text.lines.map((l) => l.trim().split(/\s{2,}/)).find((cells) => cells.includes(cluster));
    const eu1 = row('eu-1');
    expect(eu1?.slice(0, 3)).toEqual(['canary (current)', 'eu-1', 'Succeeded']);
    expect(agesOf(29, from, to)).toContain(eu1?.[3]);
    expect(agesOf(25, from, to)).toContain(eu1?.[4]);
    expect(eu1?.slice(5)).toEqual(['-', '-', 'AvailableAndSoaked']);
    const soaking = row('us-2');
    expect(soaking?.slice(0, 2)).toEqual(['us-2', 'Soaking']);
    expect(agesOf(12, from, to)).toContain(soaking?.[2]);
    expect(agesOf(4, from, to)).toContain(soaking?.[3]);
    // A 10m soak, available 4m before the fixture's now: what remains when the CLI ran.
    const soakLeft = [from, to].map((t) => formatAge(10 * 60_000 - (t - (fixtureNow - 4 * 60_000))));
    expect(soakLeft).toContain(soaking?.[4]);
    expect(row('ap-3')).toEqual(['rest (pending, needs approval)', 'ap-3', 'Pending', '-', '-', '-', '-', '-']);

    expect(json.code).toBe(0);
    const doc = JSON.parse(json.out) as {
      rollout: Stored;
      progress: { waves: Array<{ name: string; state: string }> };
    };
    const stored = await read('web');
    expect(doc.rollout.status).toEqual(stored.status);
    expect(doc.rollout.spec).toEqual(stored.spec);
    expect(doc.progress.waves.map((w) => [w.name, w.state])).toEqual([
      ['canary', 'Current'],
      ['rest', 'Pending'],
    ]);
  }, 60_000);

  it('a stopped rollout: status names why and exits 1, as kubectl rollout status does on a failed rollout', async () => {
    const r = await inHub('rollout', 'status', 'web-stopped');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/Stopped: {3}\d+m ago: 1 cluster failed \(us-2\), past the budget of 0\n/);
    expect(r.out).toContain('ImagePullBackOff (shop/web:2)');
    expect(r.out).toContain(`FleetRollout ${ns.name}/web-stopped is RolledBack: 1 cluster failed (us-2)`);
  }, 60_000);

  it('pause and resume flip spec.paused and nothing else', async () => {
    const paused = await inHub('rollout', 'pause', 'web');
    expect(paused.code).toBe(0);
    expect(paused.out).toContain(`FleetRollout ${ns.name}/web paused`);
    const afterPause = await read('web');
    expect(afterPause.spec.paused).toBe(true);
    expect({ ...afterPause.spec, paused: false }).toEqual(progressing.spec);
    expect((await inHub('rollout', 'status', 'web')).out).toContain('Phase:     Progressing (paused)');
    expect((await inHub('rollout', 'resume', 'web')).code).toBe(0);
    expect((await read('web')).spec).toEqual(progressing.spec);
  }, 60_000);

  it('approve: the first approval wave not approved for the current revision, through /status; then none waits', async () => {
    const before = await read('web');
    const r = await inHub('rollout', 'approve', 'web');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`wave rest approved for revision ${CURRENT_REVISION}`);
    const after = await read('web');
    const approvals = after.status.approvals as Array<{ revision: string; wave: string; at: string }>;
    expect(approvals.slice(0, -1)).toEqual(before.status.approvals); // the previous revision's approval kept
    expect(approvals.at(-1)).toEqual({ revision: CURRENT_REVISION, wave: 'rest', at: expect.any(String) });
    expect(Date.now() - Date.parse(approvals.at(-1)?.at ?? '')).toBeLessThan(60_000);
    expect(approvals.some((a) => a.revision === PREVIOUS_REVISION && a.wave === 'rest')).toBe(true);
    expect(after.status.revisions).toEqual(before.status.revisions); // the ledger untouched

    const [again, notGated, unknown] = await Promise.all([
      inHub('rollout', 'approve', 'web'),
      inHub('rollout', 'approve', 'web', '--wave', 'canary'),
      inHub('rollout', 'approve', 'web', '--wave', 'reset'),
    ]);
    expect(again.code).toBe(1);
    expect(again.out).toContain('no wave waits for an approval; rest already approved');
    expect(notGated.code).toBe(2);
    expect(notGated.out).toContain('--wave canary: the wave does not need an approval');
    expect(unknown.code).toBe(2);
    expect(unknown.out).toContain('did you mean rest?');
    expect((await read('web')).status.approvals).toEqual(approvals);
  }, 90_000);

  it('retry: refused while the revision is not stopped; written for the stopped current revision', async () => {
    const refused = await inHub('rollout', 'retry', 'web');
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(`revision ${CURRENT_REVISION} is Progressing, not stopped`);
    expect((await read('web')).status.retry).toBeUndefined();

    const r = await inHub('rollout', 'retry', 'web-stopped');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`retry of revision ${CURRENT_REVISION} asked for (attempt 2)`);
    const after = await read('web-stopped');
    expect(after.status.retry).toEqual({ revision: CURRENT_REVISION, at: expect.any(String) });
    const at = Date.parse((after.status.retry as { at: string }).at);
    const stoppedAt = Date.parse(String((stopped.status.revisions as Array<{ stoppedAt?: string }>)[1]?.stoppedAt));
    expect(at).toBeGreaterThanOrEqual(stoppedAt); // the planner takes a retry only from after the stop
    expect(after.status.revisions).toEqual(stopped.status.revisions);
  }, 60_000);

  it('--watch prints each new state and ends with the terminal phase (0 on Succeeded)', async () => {
    const p = start([
      'rollout',
      'status',
      'web',
      '--watch',
      '--interval',
      '200ms',
      '-o',
      'json',
      '--registry',
      registry,
      '-n',
      ns.name,
    ]);
    try {
      await p.waitForLine(/"phase":"Progressing"/, 60_000);
      await rest.request('PATCH', `${path('web')}/status`, {
        body: { status: { phase: 'Succeeded', wave: '' } },
        contentType: 'application/merge-patch+json',
      });
      expect(await p.exited).toBe(0);
      const docs = p.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { rollout: Stored });
      expect(docs.map((d) => d.rollout.status.phase)).toEqual(['Progressing', 'Succeeded']);
    } finally {
      await p.stop();
    }
  }, 90_000);

  it('a malformed ledger (passes the CRD, not the parser): an error naming the field; list shows the others', async () => {
    const raw = ledgerRollout('web-malformed', ns.name, Date.now());
    const current = (raw.status.revisions as Array<{ clusters: unknown[] }>)[1];
    current?.clusters.push({ cluster: 'eu-1', wave: 'rest' }); // a second record of one cluster
    await create(raw);
    const [status, list] = await Promise.all([inHub('rollout', 'status', 'web-malformed'), inHub('rollout', 'list')]);
    expect(status.code).toBe(1);
    expect(status.out).toContain(`invalid FleetRollout ${ns.name}/web-malformed`);
    expect(status.out).toContain('status.revisions[1].clusters[3].cluster: a second record of cluster eu-1');
    expect(list.code).toBe(1);
    expect(list.lines.filter((l) => l.startsWith(`${ns.name} `)).map((l) => l.split(/\s+/)[1])).toEqual([
      'web',
      'web-stopped',
    ]);
    expect(list.out).toContain('1 FleetRollout(s) not shown');
    await rest.request('DELETE', path('web-malformed'));
  }, 60_000);

  it('refusals: no hub in the registry (exit 2, how to mark one), a FleetRollout not there (exit 1, named)', async () => {
    const [noHub, missing, crdPath] = await Promise.all([
      fleetq('rollout', 'status', 'web', '--registry', noHubRegistry, '-n', ns.name),
      inHub('rollout', 'status', 'nope'),
      inHub('rollout', 'pause', 'nope'),
    ]);
    expect(noHub.code).toBe(2);
    expect(noHub.out).toContain('is the hub: add "hub: true" to the entry of the cluster that holds the FleetRollouts');
    expect(missing.code).toBe(1);
    expect(missing.out).toContain(`FleetRollout ${ns.name}/nope not found on the hub cluster ${CLUSTER}`);
    expect(crdPath.code).toBe(1);
    expect(crdPath.out).toContain(`FleetRollout ${ns.name}/nope not found`);
  }, 60_000);
});
