// A Jest suite of conformance scenarios: fleetq is started in this process when side B is a fleetq-mode
// cluster, the scenarios run through a pool in the background from beforeAll, each `it` awaits its own
// result, and afterAll prints `N passed, M failed` with the agreement per kind and writes the JSON summary.
//   CONFORMANCE_B=upstream-1     run both sides on upstream-1 (checks the harness itself)
//   CONFORMANCE_ONLY=<regex>     run only the scenarios whose name matches
//   CONFORMANCE_PARALLEL=3       scenarios in flight at once
//   CONFORMANCE_EXACT_HASH=1     compare pod-template-hash values byte for byte
//   CONFORMANCE_STRICT_EVENTS=1  differing event reasons fail the scenario
//   CONFORMANCE_KEEP=1           keep the namespaces of failed scenarios
//   CONFORMANCE_LOG_LEVEL=warn   fleetq's own log level (default error)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { missingControllers, startFleetq, type RunningFleetq } from './conformance-fleetq.js';
import {
  conformanceOptions,
  pool,
  runScenario,
  summarize,
  summaryLine,
  writeSummary,
  type ScenarioResult,
} from './conformance-runner.js';
import type { Scenario } from './conformance-types.js';
import { sandboxCluster } from './sandbox.js';

/** What fleetq needs registered to run a scenario of each kind (a Deployment needs both controllers). */
const NEEDS: Record<Scenario['kind'], string[]> = {
  ReplicaSet: ['ReplicaSet'],
  Deployment: ['Deployment', 'ReplicaSet'],
};

const LOCK_WAIT_MS = 30 * 60_000;

export function conformanceSuite(suite: string, title: string, scenarios: readonly Scenario[]): void {
  const only = process.env.CONFORMANCE_ONLY ? new RegExp(process.env.CONFORMANCE_ONLY) : undefined;
  const selected = scenarios.filter((s) => !only || only.test(s.name));
  const parallel = Number(process.env.CONFORMANCE_PARALLEL ?? 3);
  const base = conformanceOptions();

  describe(title, () => {
    let fleetq: RunningFleetq | undefined;
    const pending = new Map<string, Promise<ScenarioResult>>();

    beforeAll(async () => {
      if (selected.length === 0) return;
      const b = await sandboxCluster(base.b.cluster);
      const fleetqSide = b.state.mode === 'fleetq';
      const registered = missingControllers(['Deployment', 'ReplicaSet']).length < 2;
      if (fleetqSide && registered) fleetq = await startFleetq(base.b.cluster);
      const options = {
        ...base,
        unsupported: (s: Scenario): string | undefined => {
          const missing = fleetqSide ? missingControllers(NEEDS[s.kind]) : [];
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
          if (!r.ok) throw new Error(r.report);
          expect(r.failures).toEqual([]);
        },
        LOCK_WAIT_MS,
      );
    }
  });
}
