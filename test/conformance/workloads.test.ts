// Differential conformance of ReplicaSet and Deployment: every scenario runs at once on upstream-1 (the
// upstream controllers) and on fleetq-1 (fleetq in this process), and the normalized states must agree.
//   CONFORMANCE_B=upstream-1   run both sides on upstream-1 (checks the harness itself)
//   CONFORMANCE_ONLY=<regex>   run only the scenarios whose name matches
//   CONFORMANCE_PARALLEL=3     scenarios in flight at once
//   CONFORMANCE_EXACT_HASH=1   compare pod-template-hash values byte for byte
//   CONFORMANCE_STRICT_EVENTS=1  differing event reasons fail the scenario
//   CONFORMANCE_KEEP=1         keep the namespaces of failed scenarios
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { missingControllers, startFleetq, type RunningFleetq } from '../helpers/conformance-fleetq.js';
import {
  conformanceOptions,
  pool,
  runScenario,
  summarize,
  summaryLine,
  writeSummary,
  type ScenarioResult,
} from '../helpers/conformance-runner.js';
import type { Scenario } from '../helpers/conformance-types.js';
import { sandboxCluster } from '../helpers/sandbox.js';
import { DEPLOYMENT_SCENARIOS } from './scenarios/deployment.js';
import { REPLICASET_SCENARIOS } from './scenarios/replicaset.js';

const ALL = [...REPLICASET_SCENARIOS, ...DEPLOYMENT_SCENARIOS];
const only = process.env.CONFORMANCE_ONLY ? new RegExp(process.env.CONFORMANCE_ONLY) : undefined;
const selected = ALL.filter((s) => !only || only.test(s.name));
const PARALLEL = Number(process.env.CONFORMANCE_PARALLEL ?? 3);
const base = conformanceOptions();

/** What fleetq needs registered to run a scenario of each kind (a Deployment needs both controllers). */
const NEEDS: Record<Scenario['kind'], string[]> = {
  ReplicaSet: ['ReplicaSet'],
  Deployment: ['Deployment', 'ReplicaSet'],
};

describe('ReplicaSet and Deployment conformance', () => {
  let fleetq: RunningFleetq | undefined;
  const pending = new Map<string, Promise<ScenarioResult>>();

  beforeAll(async () => {
    const b = await sandboxCluster(base.b.cluster);
    const fleetqSide = b.state.mode === 'fleetq';
    if (fleetqSide && missingControllers(['Deployment', 'ReplicaSet']).length < 2)
      fleetq = await startFleetq(base.b.cluster);
    const options = {
      ...base,
      unsupported: (s: Scenario): string | undefined => {
        if (!fleetqSide) return undefined;
        const missing = missingControllers(NEEDS[s.kind]);
        return missing.length > 0
          ? `fleetq has no controller registered for ${missing.join(', ')} (shared/controllers/index.ts)`
          : undefined;
      },
    };
    const runs = pool(
      selected.map((s) => () => runScenario(s, options)),
      PARALLEL,
    );
    selected.forEach((s, i) => pending.set(s.name, runs[i] as Promise<ScenarioResult>));
  });

  afterAll(async () => {
    const results = await Promise.all(pending.values());
    await fleetq?.stop();
    if (results.length === 0) return;
    const summary = summarize('workloads', base, results);
    const file = writeSummary(summary);
    console.log(`${summaryLine(summary)}\n(summary: ${file})`);
  });

  for (const s of ALL) {
    const run = selected.includes(s) ? it : it.skip;
    run(
      `${s.kind} ${s.name}`,
      async () => {
        const r = await pending.get(s.name);
        if (!r) throw new Error(`scenario ${s.name} was not started`);
        if (!r.ok) throw new Error(r.report);
        expect(r.failures).toEqual([]);
      },
      30 * 60_000,
    );
  }
});
