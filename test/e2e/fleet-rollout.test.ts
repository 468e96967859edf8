// FleetRollouts end to end on five fleetq-mode sandbox clusters (ring-1 … ring-5, in three rings; ring-1 is also
// the hub), run by one `fleetq run` process as a user starts it: a Deployment in every cluster, a FleetRollout on
// the hub, and a template change applied to every cluster at once, as GitOps would. The pods of a bad revision
// fail through the pod status: the sandbox's kwok stage makes a `:404` image's pods ErrImagePull.
// What each scenario proves is asserted on what the clusters hold: the ledger in the rollout's status, the pins
// and conditions on the Deployments, and their ReplicaSets (a held Deployment makes no ReplicaSet of the new
// revision, so a ReplicaSet's absence at the end means no pod of that revision ever ran there).
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, type V1Deployment, type V1ReplicaSet } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { waitFor } from '../../infra/sandbox/process.js';
import {
  PIN_ADMITTED_ANNOTATION,
  PIN_CONDITION_TYPE,
  PIN_FROZEN_ANNOTATION,
  PIN_ROLLOUT_ANNOTATION,
} from '../../shared/rollouts/pin.js';
import type { ClusterRecord, FleetRolloutStatus, RevisionLedger } from '../../shared/rollouts/types.js';
import { unreachableCluster } from '../helpers/pipeline/fleet.js';
import { kubeConfigOf, startFleetClusters, stopFleetClusters } from '../helpers/pipeline/fleet-pipeline.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import { kubectlPath, kwokPodTemplate } from '../helpers/sandbox/clusters.js';

const execFileP = promisify(execFile);

const NS = 'shop';
const ROLLOUT_NS = 'fleetq-system';
const GOOD_1 = 'registry.example/app:1';
const GOOD_2 = 'registry.example/app:2';
const BAD = 'registry.example/app:404';
/** Ring of each cluster: ring-1 the canary, ring-2 and ring-3 early, ring-4 and ring-5 the rest. */
const RINGS: Record<string, string> = { 'ring-1': '0', 'ring-2': '1', 'ring-3': '1', 'ring-4': '2', 'ring-5': '2' };
const WAVE_OF_RING: Record<string, string> = { '0': 'canary', '1': 'early', '2': 'rest' };
const SOAK = { canary: 3_000, early: 2_000 };

type Entry = Record<string, unknown> & { name: string };

describe('FleetRollout on five clusters', () => {
  let clusters: ClusterState[] = [];
  let registryPath = '';
  let entries: Entry[] = [];
  let fleetq: Proc | undefined;
  const hub = () => clusters[0] as ClusterState;
  const byName = (name: string) => clusters.find((c) => c.name === name) as ClusterState;

  const writeEntries = (next: Entry[]) => {
    entries = next;
    writeFileSync(registryPath, stringify({ clusters: entries }));
  };
  const startFleetq = () => {
    fleetq = spawnTsx(
      'functions/cli.ts',
      { FLEETQ_DATA_DIR: mkdtempSync(join(tmpdir(), 'fleetq-rollout-')), FLEETQ_REGISTRY_CHECK_MS: '1000' },
      'fleetq run',
      ['run', '--registry', registryPath, '--driver', 'memory', '--concurrency', '16', '--skip-preflight'],
    );
    return fleetq.waitForLine(/fleetq: running \d+ cluster\(s\)/, 120_000);
  };

  beforeAll(async () => {
    clusters = await startFleetClusters('ring', 5, 1);
    registryPath = join(mkdtempSync(join(tmpdir(), 'fleetq-rollout-registry-')), 'fleet.yaml');
    writeEntries(
      clusters.map((c, i) => ({
        name: c.name,
        kubeconfig: c.kubeconfig,
        owns: ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet'],
        labels: { env: 'prod', ring: RINGS[c.name] ?? '' },
        ...(i === 0 && { hub: true }),
      })),
    );
    await Promise.all(clusters.map((c) => kubectl(c, ['create', 'namespace', NS]).catch(() => undefined)));
    await kubectl(hub(), ['create', 'namespace', ROLLOUT_NS]).catch(() => undefined);
    await startFleetq();
  }, 600_000);

  afterAll(async () => {
    await fleetq?.stop('SIGKILL');
    if (clusters.length > 0 && process.env.FLEET_ROLLOUT_KEEP !== '1') await stopFleetClusters(clusters);
  }, 300_000);

  // ---- helpers on the clusters ----

  async function kubectl(c: ClusterState, args: readonly string[]): Promise<string> {
    const { stdout } = await execFileP(kubectlPath(), ['--kubeconfig', c.kubeconfig, ...args], { timeout: 60_000 });
    return stdout;
  }

  const apps = (c: ClusterState) => kubeConfigOf(c).makeApiClient(AppsV1Api);

  async function createDeployments(name: string, image: string, only?: readonly string[]): Promise<void> {
    await Promise.all(
      clusters
        .filter((c) => only === undefined || only.includes(c.name))
        .map((c) => {
          const template = kwokPodTemplate({ app: name });
          template.spec!.containers[0]!.image = image;
          return apps(c).createNamespacedDeployment({
            namespace: NS,
            body: {
              metadata: { name },
              spec: { replicas: 2, selector: { matchLabels: { app: name } }, template },
            },
          });
        }),
    );
  }

  /** A StatefulSet (2 replicas) or a DaemonSet (one pod per kwok node) of `image` in every cluster. */
  async function createWorkloads(kind: 'StatefulSet' | 'DaemonSet', name: string, image: string): Promise<void> {
    await Promise.all(
      clusters.map((c) => {
        const template = kwokPodTemplate({ app: name });
        template.spec!.containers[0]!.image = image;
        const selector = { matchLabels: { app: name } };
        return kind === 'StatefulSet'
          ? apps(c).createNamespacedStatefulSet({
              namespace: NS,
              body: { metadata: { name }, spec: { replicas: 2, serviceName: name, selector, template } },
            })
          : apps(c).createNamespacedDaemonSet({
              namespace: NS,
              body: { metadata: { name }, spec: { selector, template } },
            });
      }),
    );
  }

  /** The template change, in every cluster at once (what a GitOps tool applying one commit does). */
  async function setImage(
    name: string,
    image: string,
    only?: readonly string[],
    resource = 'deployment',
  ): Promise<void> {
    await Promise.all(
      clusters
        .filter((c) => only === undefined || only.includes(c.name))
        .map((c) => kubectl(c, ['-n', NS, 'set', 'image', `${resource}/${name}`, `app=${image}`])),
    );
  }

  async function applyRollout(name: string, spec: Record<string, unknown>, kind = 'Deployment'): Promise<void> {
    const object = {
      apiVersion: 'fleetq.dev/v1alpha1',
      kind: 'FleetRollout',
      metadata: { name, namespace: ROLLOUT_NS },
      spec: {
        target: { kind, namespace: NS, name },
        clusters: { matchLabels: { env: 'prod' } },
        waves: [
          { name: 'canary', clusters: { matchLabels: { ring: '0' } }, maxConcurrency: 1, soak: '3s' },
          { name: 'early', clusters: { matchLabels: { ring: '1' } }, maxConcurrency: 2, soak: '2s' },
          { name: 'rest', maxConcurrency: '100%' },
        ],
        progressDeadline: '60s',
        failureBudget: { maxFailedClusters: 0 },
        onFailure: 'Rollback',
        ...spec,
      },
    };
    const file = join(mkdtempSync(join(tmpdir(), 'fleetq-rollout-obj-')), 'rollout.yaml');
    writeFileSync(file, stringify(object));
    await kubectl(hub(), ['apply', '-f', file]);
  }

  async function rolloutStatus(name: string): Promise<FleetRolloutStatus> {
    const out = await kubectl(hub(), ['-n', ROLLOUT_NS, 'get', 'fleetrollout', name, '-o', 'json']);
    return ((JSON.parse(out) as { status?: FleetRolloutStatus }).status ?? {}) as FleetRolloutStatus;
  }

  /** Waits until the rollout's current entry satisfies `done`; returns it. */
  async function waitForEntry(
    name: string,
    what: string,
    done: (e: RevisionLedger, s: FleetRolloutStatus) => boolean,
    timeoutMs = 180_000,
  ): Promise<RevisionLedger> {
    let last: FleetRolloutStatus = {};
    try {
      await waitFor(
        async () => {
          last = await rolloutStatus(name);
          const e = last.revisions?.at(-1);
          return e !== undefined && done(e, last);
        },
        timeoutMs,
        250,
        `${name}: ${what}`,
      );
    } catch (err) {
      throw new Error(
        `${err instanceof Error ? err.message : String(err)}\nlast status: ${JSON.stringify(last, null, 1)}\n` +
          `fleetq log tail:\n${fleetq?.lines.slice(-15).join('\n') ?? ''}`,
      );
    }
    return last.revisions?.at(-1) as RevisionLedger;
  }

  async function deployment(c: ClusterState, name: string): Promise<V1Deployment> {
    return apps(c).readNamespacedDeployment({ namespace: NS, name });
  }

  /**
   * Waits until the Deployment's fleet-rollout condition has `reason` (undefined: no such condition); returns the
   * Deployment. Its controller writes the condition in its own pass after the pin or template changed, which may
   * land a moment after the ledger the test waited for.
   */
  async function pinCondition(c: ClusterState, name: string, reason: string | undefined): Promise<V1Deployment> {
    let last: V1Deployment | undefined;
    const reasonOf = (d: V1Deployment) => d.status?.conditions?.find((x) => x.type === PIN_CONDITION_TYPE)?.reason;
    try {
      await waitFor(
        async () => reasonOf((last = await deployment(c, name))) === reason,
        30_000,
        250,
        `${c.name}/${name}: condition ${PIN_CONDITION_TYPE} ${reason ?? 'absent'}`,
      );
    } catch (err) {
      throw new Error(
        `${err instanceof Error ? err.message : String(err)}; last conditions: ${JSON.stringify(last?.status?.conditions ?? [])}`,
      );
    }
    return last as V1Deployment;
  }

  async function replicaSets(c: ClusterState, name: string): Promise<V1ReplicaSet[]> {
    const list = await apps(c).listNamespacedReplicaSet({ namespace: NS, labelSelector: `app=${name}` });
    return list.items;
  }

  const imageOf = (rs: V1ReplicaSet) => rs.spec?.template?.spec?.containers[0]?.image ?? '';

  /** The ReplicaSet of `image` runs every replica, available, and no other has replicas. */
  async function runsOnly(c: ClusterState, name: string, image: string): Promise<boolean> {
    const sets = await replicaSets(c, name);
    return (
      sets.every((rs) =>
        imageOf(rs) === image
          ? (rs.status?.availableReplicas ?? 0) === 2 && (rs.spec?.replicas ?? 0) === 2
          : (rs.spec?.replicas ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0,
      ) && sets.some((rs) => imageOf(rs) === image)
    );
  }

  const row = (e: RevisionLedger, cluster: string): ClusterRecord =>
    e.clusters.find((r) => r.cluster === cluster) as ClusterRecord;
  const ms = (t: string | undefined) => (t === undefined ? NaN : Date.parse(t));

  /** Every wave admits only after the wave before it succeeded and soaked. */
  function expectWavesInOrder(e: RevisionLedger): void {
    const waves = ['canary', 'early', 'rest'];
    for (let w = 1; w < waves.length; w++) {
      const before = e.clusters.filter((r) => r.wave === waves[w - 1]);
      const after = e.clusters.filter((r) => r.wave === waves[w]);
      const lastVerdict = Math.max(...before.map((r) => ms(r.verdictAt)));
      for (const r of after) expect(ms(r.admittedAt)).toBeGreaterThanOrEqual(lastVerdict);
    }
    for (const r of e.clusters) {
      const soak = SOAK[r.wave as keyof typeof SOAK] ?? 0;
      if (r.reason === 'AvailableAndSoaked')
        expect(ms(r.verdictAt) - ms(r.availableSince)).toBeGreaterThanOrEqual(soak);
    }
  }

  // ---- the scenarios ----

  /** The rollout of `name`'s first revision through every wave, then its first template change. */
  async function startAt(name: string, spec: Record<string, unknown> = {}): Promise<string> {
    await createDeployments(name, GOOD_1);
    await applyRollout(name, spec);
    const first = await waitForEntry(name, 'the first revision succeeded', (e) => e.phase === 'Succeeded');
    return first.revision;
  }

  async function goodRevision(): Promise<void> {
    const name = 'web-good';
    const r1 = await startAt(name);
    await setImage(name, GOOD_2);
    const e = await waitForEntry(
      name,
      'the second revision succeeded',
      (x) => x.revision !== r1 && x.phase === 'Succeeded',
    );
    expect(e.clusters.map((r) => [r.cluster, r.wave, r.verdict])).toEqual(
      clusters.map((c) => [c.name, WAVE_OF_RING[RINGS[c.name] ?? ''], 'Succeeded']),
    );
    expectWavesInOrder(e);
    for (const c of clusters) {
      expect(await runsOnly(c, name, GOOD_2)).toBe(true);
      const d = await pinCondition(c, name, undefined);
      expect(d.metadata?.annotations?.[PIN_ADMITTED_ANNOTATION]).toBe(e.revision);
      expect(d.metadata?.annotations?.[PIN_ROLLOUT_ANNOTATION]).toBe(`${ROLLOUT_NS}/${name}`);
    }
  }

  /** A StatefulSet's or a DaemonSet's new revision through every wave: each cluster's pods end on it. */
  async function goodRevisionOf(kind: 'StatefulSet' | 'DaemonSet'): Promise<void> {
    const name = `${kind.toLowerCase()}-good`;
    await createWorkloads(kind, name, GOOD_1);
    await applyRollout(name, {}, kind);
    const r1 = (await waitForEntry(name, 'the first revision succeeded', (x) => x.phase === 'Succeeded')).revision;
    await setImage(name, GOOD_2, undefined, kind.toLowerCase());
    const e = await waitForEntry(
      name,
      'the second revision succeeded',
      (x) => x.revision !== r1 && x.phase === 'Succeeded',
    );
    expectWavesInOrder(e);
    expect(e.clusters.every((r) => r.verdict === 'Succeeded')).toBe(true);
    for (const c of clusters) {
      const pods = await kubeConfigOf(c)
        .makeApiClient(CoreV1Api)
        .listNamespacedPod({ namespace: NS, labelSelector: `app=${name}` });
      const images = pods.items
        .filter((p) => p.metadata?.deletionTimestamp === undefined)
        .map((p) => p.spec?.containers[0]?.image);
      expect(images.length).toBeGreaterThan(0);
      expect(new Set(images)).toEqual(new Set([GOOD_2]));
    }
  }

  async function badRevisionBudget0(): Promise<void> {
    const name = 'web-bad0';
    const r1 = await startAt(name);
    await setImage(name, BAD);
    const e = await waitForEntry(
      name,
      'the bad revision rolled back',
      (x) => x.revision !== r1 && x.phase === 'RolledBack',
    );
    expect(row(e, 'ring-1')).toMatchObject({ verdict: 'RolledBack', previousRevision: r1 });
    expect(row(e, 'ring-1').failure?.signature).toMatch(/ErrImagePull|ImagePullBackOff/);
    for (const c of clusters.slice(1)) expect(row(e, c.name).admittedAt).toBeUndefined();
    // The canary runs the previous revision again; no other cluster ever made a ReplicaSet (or pod) of the bad one.
    await waitFor(() => runsOnly(hub(), name, GOOD_1), 60_000, 250, `${name}: ring-1 back on ${GOOD_1}`);
    for (const c of clusters.slice(1)) expect((await replicaSets(c, name)).map(imageOf)).toEqual([GOOD_1]);
    const canary = await pinCondition(hub(), name, 'RolledBackByFleetRollout');
    expect(canary.spec?.template?.spec?.containers[0]?.image).toBe(BAD); // the spec stays the user's
    await pinCondition(byName('ring-4'), name, 'WaitingForFleetRollout');
  }

  async function badRevisionBudget1(): Promise<void> {
    const name = 'web-bad1';
    const r1 = await startAt(name, { failureBudget: { maxFailedClusters: 1 } });
    await setImage(name, BAD);
    // Within the budget the failing canary is frozen, not rolled back: its pin names the bad revision frozen.
    const pins = new Set<string>();
    let watching = true;
    const watchPins = (async () => {
      while (watching) {
        const a = (await deployment(hub(), name)).metadata?.annotations ?? {};
        pins.add(`${a[PIN_ADMITTED_ANNOTATION] ?? ''}/${a[PIN_FROZEN_ANNOTATION] ?? ''}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const e = await waitForEntry(
      name,
      'the second failure rolled back both',
      (x) => x.revision !== r1 && x.phase === 'RolledBack',
    ).finally(() => (watching = false));
    await watchPins;
    expect([...pins]).toContain(`${e.revision}/${e.revision}`);
    const canaryRecord = row(e, 'ring-1');
    expect(canaryRecord.failedAt).toBeDefined();
    const failed = e.clusters.filter((r) => r.failedAt !== undefined).map((r) => r.cluster);
    expect(failed.length).toBeGreaterThanOrEqual(2);
    for (const cluster of failed) expect(row(e, cluster).verdict).toBe('RolledBack');
    for (const cluster of ['ring-4', 'ring-5']) expect(row(e, cluster).admittedAt).toBeUndefined();
    // The canary's freeze came before the second failure: its record failed before the early wave was admitted.
    const earlyAdmitted = Math.min(...e.clusters.filter((r) => r.wave === 'early').map((r) => ms(r.admittedAt)));
    expect(ms(canaryRecord.failedAt)).toBeLessThanOrEqual(earlyAdmitted);
    for (const cluster of failed) {
      await waitFor(
        () => runsOnly(byName(cluster), name, GOOD_1),
        60_000,
        250,
        `${name}: ${cluster} back on ${GOOD_1}`,
      );
    }
    for (const c of [byName('ring-4'), byName('ring-5')])
      expect((await replicaSets(c, name)).map(imageOf)).toEqual([GOOD_1]);
  }

  async function pauseAndApproval(): Promise<void> {
    const name = 'web-gated';
    await createDeployments(name, GOOD_1);
    await applyRollout(name, {
      waves: [
        { name: 'canary', clusters: { matchLabels: { ring: '0' } }, maxConcurrency: 1, soak: '3s' },
        { name: 'early', clusters: { matchLabels: { ring: '1' } }, maxConcurrency: 2, soak: '2s', approval: true },
        { name: 'rest', maxConcurrency: '100%' },
      ],
    });
    const r1 = await firstRevision(name);
    await rolloutCli(['pause', name]);
    await setImage(name, GOOD_2);
    const paused = await waitForEntry(
      name,
      'paused with the new revision held',
      (x, s) => x.revision !== r1 && s.phase === 'Paused',
    );
    expect(paused.clusters.every((r) => r.admittedAt === undefined)).toBe(true);
    const held = await pinCondition(hub(), name, 'WaitingForFleetRollout');
    expect(held.metadata?.annotations?.[PIN_ADMITTED_ANNOTATION]).toBe(r1);
    await rolloutCli(['resume', name]);
    const waiting = await waitForEntry(
      name,
      'the early wave waits for approval',
      (_x, s) => s.phase === 'WaitingForApproval' && s.wave === 'early',
    );
    expect(row(waiting, 'ring-1').verdict).toBe('Succeeded');
    expect(row(waiting, 'ring-2').admittedAt).toBeUndefined();
    await rolloutCli(['approve', name, '--wave', 'early']);
    const done = await waitForEntry(name, 'the new revision succeeded', (x) => x.phase === 'Succeeded');
    expect(done.revision).toBe(paused.revision);
    expectWavesInOrder(done);
  }

  /**
   * The first revision of a rollout with an approval wave, to Succeeded, approved when it waits. Whether it waits
   * is a race the test does not control: a cluster whose new workload was available before the rollout first
   * looked is recorded AvailableBeforeRollout (nothing to admit), and when every cluster of the approval wave is,
   * nothing waits. The revisions after it are held by their pins, and always wait.
   */
  async function firstRevision(name: string): Promise<string> {
    const e = await waitForEntry(
      name,
      'the first revision waits for approval or succeeded',
      (x, s) => x.phase === 'Succeeded' || s.phase === 'WaitingForApproval',
    );
    if (e.phase !== 'Succeeded') await rolloutCli(['approve', name]);
    return (await waitForEntry(name, 'the first revision succeeded', (x) => x.phase === 'Succeeded')).revision;
  }

  async function rolloutCli(args: readonly string[]): Promise<string> {
    const { stdout } = await execFileP(
      process.execPath,
      ['--import', 'tsx', 'functions/cli.ts', 'rollout', ...args, '--registry', registryPath, '-n', ROLLOUT_NS],
      { env: { ...process.env, NODE_OPTIONS: '' }, timeout: 60_000 },
    );
    return stdout;
  }

  it('a good revision goes through every wave (Deployment, StatefulSet, DaemonSet), a bad one is rolled back within budget 0 and past budget 1, and pause, resume and approval gate it', async () => {
    const scenarios = {
      'good revision': goodRevision,
      'bad revision, budget 0': badRevisionBudget0,
      'bad revision, budget 1': badRevisionBudget1,
      'pause, resume and approval': pauseAndApproval,
      "a StatefulSet's good revision": () => goodRevisionOf('StatefulSet'),
      "a DaemonSet's good revision": () => goodRevisionOf('DaemonSet'),
    };
    const results = await Promise.allSettled(Object.values(scenarios).map((run) => run()));
    const failures = results.flatMap((r, i) =>
      r.status === 'rejected'
        ? [
            `${Object.keys(scenarios)[i]}: ${r.reason instanceof Error ? (r.reason.stack ?? r.reason.message) : String(r.reason)}`,
          ]
        : [],
    );
    expect(failures).toEqual([]);
  }, 600_000);

  it('a handler killed right after it admitted a cluster: the next one neither admits it again nor skips one', async () => {
    const name = 'web-kill';
    // A deadline that outlasts the restart: the canary must not fail for the time fleetq was down.
    const r1 = await startAt(name, { progressDeadline: '5m' });
    await setImage(name, GOOD_2);
    const admitted = await waitForEntry(
      name,
      'the canary admitted',
      (x) => x.revision !== r1 && row(x, 'ring-1')?.admittedAt !== undefined,
      120_000,
    );
    await fleetq?.stop('SIGKILL');
    await startFleetq();
    const e = await waitForEntry(
      name,
      'the new revision succeeded after the restart',
      (x) => x.revision === admitted.revision && x.phase === 'Succeeded',
    );
    expect(row(e, 'ring-1').admittedAt).toBe(row(admitted, 'ring-1').admittedAt);
    expect(e.attempt).toBe(admitted.attempt);
    for (const r of e.clusters) expect(r.admittedAt).toBeDefined();
    expectWavesInOrder(e);
  }, 300_000);
  // `fleetq run` reads the registry when it starts (workers and the forwarder pool re-read it while they run): the
  // registry changes here are followed by a restart, the ledger carrying the rollout across it.
  it('a cluster that becomes unreachable fails after the deadline without stalling the rollout, and one that joins goes to the last wave', async () => {
    const name = 'web-members';
    // ring-5 is not selected at first.
    await fleetq?.stop('SIGTERM');
    writeEntries(entries.map((e) => (e.name === 'ring-5' ? { ...e, labels: { env: 'staging', ring: '2' } } : e)));
    await startFleetq();
    // The canary wave waits for an approval: the rollout of the new revision is under way (its ledger entry
    // started, every cluster held) while the registry changes and fleetq restarts, and no admitted cluster's
    // deadline runs meanwhile.
    const spec = {
      progressDeadline: '20s',
      failureBudget: { maxFailedClusters: 1 },
      waves: [
        { name: 'canary', clusters: { matchLabels: { ring: '0' } }, maxConcurrency: 1, soak: '3s', approval: true },
        { name: 'early', clusters: { matchLabels: { ring: '1' } }, maxConcurrency: 2, soak: '2s' },
        { name: 'rest', maxConcurrency: '100%' },
      ],
    };
    await createDeployments(name, GOOD_1, ['ring-1', 'ring-2', 'ring-3', 'ring-4', 'ring-5']);
    await applyRollout(name, spec);
    const r1 = await firstRevision(name);
    await setImage(name, GOOD_2, ['ring-1', 'ring-2', 'ring-3', 'ring-4']);
    await waitForEntry(
      name,
      'the new revision under way, waiting for approval',
      (x, s) => x.revision !== r1 && s.phase === 'WaitingForApproval',
    );
    // Mid-rollout: ring-4 stops answering (its entry now points at a closed port); ring-5 joins, with the new
    // template too.
    await fleetq?.stop('SIGTERM');
    const down = await unreachableCluster('ring-4');
    writeEntries(
      entries.map((e) =>
        e.name === 'ring-4'
          ? { ...down, owns: e.owns, labels: e.labels }
          : e.name === 'ring-5'
            ? { ...e, labels: { env: 'prod', ring: '2' } }
            : e,
      ),
    );
    await setImage(name, GOOD_2, ['ring-5']);
    await startFleetq();
    await waitForEntry(name, 'ring-5 joined', (x) => x.clusters.some((r) => r.cluster === 'ring-5'));
    await rolloutCli(['approve', name]);
    const e = await waitForEntry(
      name,
      'the new revision succeeded without ring-4',
      (x) => x.revision !== r1 && x.phase === 'Succeeded',
    );
    expect(row(e, 'ring-4')).toMatchObject({ verdict: 'Failed' });
    expect(row(e, 'ring-4').reason).toMatch(/^(Unreachable|TargetMissing|ProgressDeadlineExceeded)/);
    expect(row(e, 'ring-5')).toMatchObject({ wave: 'rest', verdict: 'Succeeded' });
    expect(row(e, 'ring-5').joinedAt).toBeDefined();
    expect(ms(row(e, 'ring-5').admittedAt)).toBeGreaterThanOrEqual(
      Math.max(...e.clusters.filter((r) => r.wave === 'early').map((r) => ms(r.verdictAt))),
    );
    expect(await runsOnly(byName('ring-5'), name, GOOD_2)).toBe(true);
  }, 300_000);
});
