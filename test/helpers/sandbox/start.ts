// Starts (or reuses) the standard sandbox clusters the test suites use; .ci/run calls it before `npm test`.
import { ensureSandbox } from './clusters.js';

const clusters = await ensureSandbox();
for (const c of clusters) console.log(`${c.name}\t${c.mode}\t${c.server}\t${c.kubeconfig}`);
