// Layers: a folder may import its own layer and the layers listed before it, never one after it.
//
//   1. shared/kube         API client (rest.ts), cluster registry, names, keys, resource table, writer, errors
//   2. shared/queue        the WorkQueue and its drivers (redis, sqs, memory), the event log and checkpoints
//   3. shared/cache        the cluster caches the forwarder fills and handlers read (its Redis store runs the
//                          queue's script runner)
//   4. shared/controllers  the planners: pure, built on kube's types only (no queue, no cache, no I/O)
//   5. shared/admission    admission webhooks fleetq serves for a kind (defaulting, validation): pure, from the
//                          request alone (no queue, no cache)
//   6. shared/runtime      the reconcile path and what every process shares: logger, settings, secret redaction,
//                          reconcile-one, the worker loop, clients, deps of a handler, registry reload
//   7. shared/forwarder    watches and lists clusters and enqueues keys (runs on runtime's logger and settings)
//   8. shared/ops          `fleetq status`: reads what runtime and forwarder leave in Redis
//   9. shared/replay       event-log export, import, requeue, shadow runs
//  10. functions           entry points: each builds its dependencies in one place (its composition root);
//                          infra/ (deployment, local sandbox) and test/ sit beside them and are not product code
//
// Product code (shared/, functions/) never imports infra/sandbox (a development cluster) or test/; shared/ imports
// neither functions/ nor infra/. Cycles between modules are caught by test/unit/layers/import-cycles.test.ts.
// The patterns match relative specifiers by folder name, whatever the depth (`../cache/`, `../../cache/`): no
// layer has a subfolder named like another layer.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Bottom to top: the top-level folders of shared/, then functions. */
export const LAYERS = [
  'kube',
  'queue',
  'cache',
  'controllers',
  'admission',
  'runtime',
  'forwarder',
  'ops',
  'replay',
  'functions',
];

/**
 * What a layer may not import besides the layers above it: the planners stay pure (no queue, no cache), and so
 * does admission (it answers from the request alone).
 */
const ALSO_FORBIDDEN = { controllers: ['queue', 'cache'], admission: ['queue', 'cache'] };

const NOT_PRODUCT = {
  regex: String.raw`^(\.\./)+(infra/sandbox|test)(/|$)`,
  message: 'product code (shared/, functions/) does not import the development sandbox (infra/sandbox) or tests.',
};

function layerRule(layer) {
  const above = LAYERS.slice(LAYERS.indexOf(layer) + 1);
  const forbidden = [...above, ...(ALSO_FORBIDDEN[layer] ?? [])];
  const folder = (l) => (l === 'functions' ? 'functions|infra' : `(shared/)?${l}`);
  const patterns = [NOT_PRODUCT];
  if (forbidden.length > 0) {
    patterns.push({
      regex: String.raw`^(\.\./)+(${forbidden.map(folder).join('|')})(/|$)`,
      message: `${layer} may not import ${forbidden.join(', ')} (eslint.config.js, "Layers"): invert the dependency or move the code.`,
    });
  }
  return {
    files: [layer === 'functions' ? 'functions/**/*.ts' : `shared/${layer}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  };
}

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.cache/', '.sandbox/', '.serverless/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...LAYERS.map(layerRule),
);
