// What test/bench/forwarder-memory.ts prints and writes: a row per step, the least-squares bytes per object, the
// restart's figures and the JSON document.
import { writeFileSync } from 'node:fs';
import { leastSquaresSlope } from '../stats.js';

export const MiB = (b: number): number => Math.round((b / 2 ** 20) * 10) / 10;

export type Step = {
  /** Deployments, ReplicaSets and Pods the forwarder watches in the cluster (every namespace). */
  objects: number;
  /** Of which pods (the warm-up's 20 included). */
  pods: number;
  rssMiB: number;
  heapUsedMiB: number;
  /** Every sample of the step (bytes): the figures above are their minimum. */
  rssBytes: number[];
  heapUsedBytes: number[];
  /** Heap used by code spaces (compiled code), at each sample. */
  codeBytes: number[];
  /** The highest RSS sampled (every 250 ms) from the step's first create to its last sample. */
  rssPeakMiB: number;
  /** Watch events the forwarder handled so far (fleetq_forwarder_events_total, all types). */
  events: number;
  /** From the step's first create to the forwarder's quiet (s). */
  settleS: number;
  load: string;
};

/** The forwarder started again on the largest step's objects. */
export type Restart = {
  objects: number;
  rssMiB: number;
  heapUsedMiB: number;
  rssPeakMiB: number;
  firstStartRssPeakMiB: number;
  startS: number;
  load: string;
};

/** How the run was made, as the report states it. */
export type MemoryRun = {
  readonly readMode: string;
  readonly cluster: string;
  readonly nodes: number;
  readonly directBind: boolean;
  readonly podsPerWorkload: number;
  readonly samples: number;
  /** The run's wall time and the load at its end. */
  readonly ms: number;
  readonly load: string;
  /** Where to write the JSON document, if anywhere. */
  readonly json?: string;
};

export function reportForwarderMemory(
  run: MemoryRun,
  steps: readonly Step[],
  restart: Restart | undefined,
  objectBytesJson: number,
): void {
  const { readMode, podsPerWorkload: PODS_PER_WORKLOAD, samples: SAMPLES, nodes: NODES } = run;
  const rssPerObject = leastSquaresSlope(steps.map((s) => [s.objects, Math.min(...s.rssBytes)]));
  const heapPerObject = leastSquaresSlope(steps.map((s) => [s.objects, Math.min(...s.heapUsedBytes)]));
  /** Heap used less code spaces, at the sample of least heap. */
  const heapLessCode = (s: Step): number => {
    const i = s.heapUsedBytes.indexOf(Math.min(...s.heapUsedBytes));
    return (s.heapUsedBytes[i] ?? 0) - (s.codeBytes[i] ?? 0);
  };
  const heapLessCodePerObject = leastSquaresSlope(steps.map((s) => [s.objects, heapLessCode(s)]));
  const runLoad = run.load;
  console.log(
    `forwarder memory: one forwarder (functions/forwarder.ts, Redis driver, reads ${readMode}) watching ${run.cluster};`,
  );
  console.log(
    `Deployments of ${PODS_PER_WORKLOAD} pods (1 Deployment + 1 ReplicaSet + ${PODS_PER_WORKLOAD} pods), no worker; minimum of ${SAMPLES} samples after a forced GC`,
  );
  console.log(
    ['objects', 'pods', 'RSS MiB', 'heap MiB', 'heap less code MiB', 'RSS peak MiB', 'events', 'settle s', 'load'].join(
      '\t',
    ),
  );
  for (const s of steps)
    console.log(
      [
        s.objects,
        s.pods,
        s.rssMiB,
        s.heapUsedMiB,
        MiB(heapLessCode(s)),
        s.rssPeakMiB,
        s.events,
        s.settleS,
        s.load,
      ].join('\t'),
    );
  console.log(
    `bytes per object: RSS ${Math.round(rssPerObject)}, heap ${Math.round(heapPerObject)}, heap less code ${Math.round(heapLessCodePerObject)} (least squares over ${steps.length} steps)`,
  );
  if (restart)
    console.log(
      `restarted on ${restart.objects} objects: RSS ${restart.rssMiB} MiB, heap ${restart.heapUsedMiB} MiB, RSS peak ${restart.rssPeakMiB} MiB (first start, 0 objects: ${restart.firstStartRssPeakMiB}), listed and quiet in ${restart.startS} s`,
    );
  console.log(
    `mean JSON size of a watched pod: ${objectBytesJson} B; run ${Math.round(run.ms / 1000)} s; load ${runLoad}`,
  );
  if (run.json !== undefined) {
    const doc = {
      at: new Date().toISOString(),
      load: runLoad,
      node: process.version,
      readMode,
      cluster: run.cluster,
      nodes: NODES,
      bind: run.directBind ? 'direct' : 'scheduler',
      podsPerWorkload: PODS_PER_WORKLOAD,
      samplesPerStep: SAMPLES,
      steps: steps.map((s) => ({
        objects: s.objects,
        pods: s.pods,
        rssMiB: s.rssMiB,
        heapUsedMiB: s.heapUsedMiB,
        rssPeakMiB: s.rssPeakMiB,
        rssSamplesMiB: s.rssBytes.map(MiB),
        heapUsedSamplesMiB: s.heapUsedBytes.map(MiB),
        heapLessCodeMiB: MiB(heapLessCode(s)),
        events: s.events,
        settleS: s.settleS,
        load: s.load,
      })),
      bytesPerObject: {
        rss: Math.round(rssPerObject),
        heap: Math.round(heapPerObject),
        heapLessCode: Math.round(heapLessCodePerObject),
      },
      objectBytesJson,
      ...(restart && { restart }),
    };
    writeFileSync(run.json, `${JSON.stringify(doc, null, 2)}\n`);
  }
}
