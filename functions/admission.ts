// Long-running admission function for JobSet (defaulting and validation as upstream's webhooks), over HTTPS:
//   npx tsx functions/admission.ts --port 9443 --cert tls.crt --key tls.key
// or FLEETQ_ADMISSION_PORT, FLEETQ_ADMISSION_CERT, FLEETQ_ADMISSION_KEY (flags win), and
// FLEETQ_JOBSET_FEATURE_GATES (upstream's syntax, e.g. RestartJob=true). Paths: /mutate-jobset-x-k8s-io-v1alpha2-jobset
// and /validate-jobset-x-k8s-io-v1alpha2-jobset; GET /healthz. SIGTERM/SIGINT: stop accepting, finish, exit 0.
// LeaderWorkerSet's four webhooks (lws's paths: /mutate-leaderworkerset-x-k8s-io-v1-leaderworkerset,
// /validate-leaderworkerset-x-k8s-io-v1-leaderworkerset, /mutate--v1-pod, /validate--v1-pod) are served too with
// --leader-worker-set or FLEETQ_ADMISSION_LEADERWORKERSET=true: for a cluster that owns LeaderWorkerSet
// (infra/k8s/components/leaderworkerset-admission sets it), whose pod webhooks select the set's pods by label. The
// variable is checked even with the flag: a value other than true, false or empty stops it (exit 2).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseFeatureGates } from '../shared/admission/feature-gates.js';
import { resolveServeLeaderWorkerSet } from '../shared/admission/serve-leaderworkerset.js';
import { startAdmissionServer } from '../shared/admission/server.js';
import { Logger } from '../shared/runtime/logger.js';

const logger = new Logger('fleetq-admission');
const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    cert: { type: 'string' },
    key: { type: 'string' },
    'leader-worker-set': { type: 'boolean' },
  },
});
const certFile = values.cert ?? process.env.FLEETQ_ADMISSION_CERT;
const keyFile = values.key ?? process.env.FLEETQ_ADMISSION_KEY;
const port = Number(values.port ?? process.env.FLEETQ_ADMISSION_PORT ?? 9443);
if (certFile === undefined || keyFile === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
  logger.error('Admission function not started: it needs --cert and --key (PEM files) and a valid --port', {
    cert: certFile ?? null,
    key: keyFile ?? null,
    port: values.port ?? process.env.FLEETQ_ADMISSION_PORT ?? null,
  });
  process.exit(2);
}
const features = parseFeatureGates(process.env.FLEETQ_JOBSET_FEATURE_GATES);
let serveLeaderWorkerSet: boolean;
try {
  serveLeaderWorkerSet = resolveServeLeaderWorkerSet(
    values['leader-worker-set'],
    process.env.FLEETQ_ADMISSION_LEADERWORKERSET,
  );
} catch (err) {
  logger.error('Admission function not started', { error: (err as Error).message });
  process.exit(2);
}
const running = await startAdmissionServer({
  port,
  host: values.host ?? process.env.FLEETQ_ADMISSION_HOST,
  cert: readFileSync(certFile),
  key: readFileSync(keyFile),
  features,
  serveLeaderWorkerSet,
  log: (message, fields) => logger.info(message, fields),
});
logger.info('Admission function started', { port: running.port, features, serveLeaderWorkerSet, pid: process.pid });

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('Admission function stopping', { signal });
  await running.close();
  logger.info('Admission function stopped', { signal });
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
