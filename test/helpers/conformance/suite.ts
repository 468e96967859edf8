// A Jest suite of conformance scenarios: fleetq is started in this process when side B is a fleetq-mode
// cluster, the scenarios run through a pool in the background from beforeAll, each `it` awaits its own
// result, and afterAll prints `N passed, M failed` with the agreement per kind and writes the JSON summary.
//   CONFORMANCE_B=upstream-1     run both sides on upstream-1 (checks the harness itself)
//   CONFORMANCE_ONLY=<regex>     run only the scenarios whose name matches
//   CONFORMANCE_EVERY=<k>        run every k-th of those, in the suite's order (the first, the k+1-th, …): a
//                                sample across its kinds (CI's live-read run)
//   CONFORMANCE_PARALLEL=3       scenarios in flight at once
//   CONFORMANCE_EXACT_HASH=1     compare pod-template-hash values byte for byte
//   CONFORMANCE_STRICT_EVENTS=0  differing events (reason + type per workload) are reported, not failing
//   CONFORMANCE_KEEP=1           keep the namespaces of failed scenarios
//   CONFORMANCE_LOG_LEVEL=warn   fleetq's own log level (default error)
//   CONFORMANCE_CREDENTIALS=admin fleetq with the admin kubeconfig, not the ServiceAccounts of infra/k8s/
// Under the ServiceAccounts, a request their roles refuse fails the suite: the last test counts the apiserver's
// RBAC refusals since fleetq started, and a failed scenario's report says how many there were.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { credentialsFrom, missingControllers, startFleetq, type RunningFleetq } from './fleetq.js';
import {
  conformanceOptions,
  pool,
  runScenario,
  summarize,
  summaryLine,
  writeSummary,
  type ScenarioResult,
} from './runner.js';
import { ownedKinds, pluginOf } from './plugins.js';
import type { Scenario } from './types.js';
import { sandboxCluster } from '../sandbox/clusters.js';

const LOCK_WAIT_MS = 30 * 60_000;

/**
 * `o.parallel`: scenarios in flight at once when CONFORMANCE_PARALLEL does not say (default 3); the CronJob suite's
 * scenarios wait for minutes of schedule, mostly idle, so it runs them all at once.
 */
export function conformanceSuite(
  suite: string,
  title: string,
  scenarios: readonly Scenario[],
  o: { readonly parallel?: number } = {},
): void {
  const only = process.env.CONFORMANCE_ONLY ? new RegExp(process.env.CONFORMANCE_ONLY) : undefined;
  const every = Number(process.env.CONFORMANCE_EVERY ?? 1);
  if (!Number.isInteger(every) || every < 1) throw new Error(`CONFORMANCE_EVERY must be a whole number >= 1`);
  const selected = scenarios.filter((s) => !only || only.test(s.name)).filter((_, i) => i % every === 0);
  const parallel = Number(process.env.CONFORMANCE_PARALLEL ?? o.parallel ?? 3);
  const base = conformanceOptions();

  describe(title, () => {
    let fleetq: RunningFleetq | undefined;
    const pending = new Map<string, Promise<ScenarioResult>>();

    beforeAll(async () => {
      if (selected.length === 0) return;
      const b = await sandboxCluster(base.b.cluster);
      const fleetqSide = b.state.mode === 'fleetq';
      // fleetq runs when it has a controller for any kind the plug-ins need (a scenario it lacks one for fails).
      const registered = missingControllers(ownedKinds()).length < ownedKinds().length;
      if (fleetqSide && registered) fleetq = await startFleetq(base.b.cluster);
      const options = {
        ...base,
        unsupported: (s: Scenario): string | undefined => {
          const missing = fleetqSide ? missingControllers(pluginOf(s.kind).needs) : [];
          return missing.length > 0
            ? `fleetq has no controller registered for ${missing.join(', ')} (shared/controllers/index.ts)`
            : undefined;
        },
      };
      const runs = pool(
        selected.map((s) => () => runScenario(s, options)),
        parallel,
      );
      selected.forEach((s, i) => pending.set(s.name, runs[i] as Promise<ScenarioResult>));
    }, LOCK_WAIT_MS);

    afterAll(async () => {
      const results = await Promise.all(pending.values());
      await fleetq?.stop();
      if (results.length === 0) return;
      const summary = summarize(suite, base, results);
      const file = writeSummary(summary);
      console.log(`${summaryLine(summary)}\n(summary: ${file})`);
    }, LOCK_WAIT_MS);

    for (const s of scenarios) {
      const run = selected.includes(s) ? it : it.skip;
      run(
        `${s.kind} ${s.name}`,
        async () => {
          const r = await pending.get(s.name);
          if (!r) throw new Error(`scenario ${s.name} was not started`);
          if (!r.ok) throw new Error(r.report + (await denialNote(fleetq)));
          expect(r.failures).toEqual([]);
        },
        LOCK_WAIT_MS,
      );
    }

    const checksRoles = selected.length > 0 && credentialsFrom() === 'serviceaccounts' ? it : it.skip;
    checksRoles(
      'fleetq: every request allowed by its roles (infra/k8s/, no 403 from RBAC)',
      async () => {
        await Promise.all(pending.values());
        if (fleetq === undefined) return; // side B is not a fleetq cluster
        expect({ refusedByRbac: await fleetq.denials() }).toEqual({ refusedByRbac: 0 });
      },
      LOCK_WAIT_MS,
    );
  });
}

/** When fleetq's roles refused requests, the count and where the log names them. */
async function denialNote(fleetq: RunningFleetq | undefined): Promise<string> {
  const denied = fleetq?.credentials === 'serviceaccounts' ? await fleetq.denials().catch(() => 0) : 0;
  return denied === 0
    ? ''
    : `\n${denied} request(s) of fleetq refused with 403 by RBAC so far: its roles (shared/kube/rbac.ts) lack a rule; ` +
        "fleetq's error log names them ('Reconcile forbidden (403)', 'List failed', 'Watch failed', 'Event rejected')";
}
