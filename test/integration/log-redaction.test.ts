// Env values and kubectl's last-applied-configuration through a real forwarder on the sandbox cluster fleetq-2:
// a Deployment applied with an env value (and so a last-applied copy of it) is logged with a keyed digest in
// place of the value, its name and valueFrom kept, and no last-applied annotation.
import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { Forwarder } from '../../shared/forwarder/forwarder.js';
import { redactionPolicy } from '../../shared/forwarder/forwarder-deps.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { JsonlEventLog } from '../../shared/queue/history/jsonl-event-log.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { Logger } from '../../shared/runtime/logger.js';
import { waitFor } from '../../infra/sandbox/process.js';
import '../helpers/long-timeout.js';
import { kubectl, sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';

// The logged JSON, walked loosely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

describe('env redaction through a real forwarder (fleetq-2)', () => {
  const CLUSTER = 'fleetq-2';
  const PASSWORD = `hunter2-${randomUUID()}`;
  const queue = new MemoryQueue();
  afterAll(() => queue.close());

  it('logs a Deployment without its env values or last-applied copy', async () => {
    const c = await sandboxCluster(CLUSTER);
    const ns = await testNamespace(c.kc);
    const dir = await mkdtemp(join(tmpdir(), 'fleetq-env-redaction-'));
    const redaction = redactionPolicy(loadConfig({ FLEETQ_SIGNING_SECRET: `signing-${randomUUID()}` }));
    const files = new JsonlEventLog({ dir, redaction });
    const forwarder = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['Deployment'],
      queue,
      checkpoints: new MemoryCheckpointStore(),
      eventLog: files,
      logger: new Logger('test', 'error', () => undefined),
      registry: new Registry(),
      resyncMs: 0,
    });
    try {
      await forwarder.start();
      await forwarder.synced();
      const manifest = join(dir, 'deployment.yaml');
      await writeFile(
        manifest,
        [
          'apiVersion: apps/v1',
          'kind: Deployment',
          `metadata: { name: web, namespace: ${ns.name} }`,
          'spec:',
          '  replicas: 0',
          '  selector: { matchLabels: { app: web } }',
          '  template:',
          '    metadata: { labels: { app: web } }',
          '    spec:',
          '      containers:',
          '        - name: app',
          '          image: registry.example/app:1',
          '          env:',
          `            - { name: DB_PASSWORD, value: "${PASSWORD}" }`,
          '            - { name: FROM_SECRET, valueFrom: { secretKeyRef: { name: s, key: k } } }',
        ].join('\n'),
      );
      await kubectl(c.state, ['apply', '-f', manifest]); // apply: last-applied-configuration repeats the env
      const text = async (): Promise<string> => {
        const segments = await readdir(files.clusterDir(CLUSTER)).catch(() => []);
        return (await Promise.all(segments.map((s) => readFile(join(files.clusterDir(CLUSTER), s), 'utf8')))).join();
      };
      await waitFor(async () => (await text()).includes(`"namespace":"${ns.name}"`), 30_000, 100, 'the Deployment');
      const logged = (await text())
        .split('\n')
        .filter((l) => l.includes(`"namespace":"${ns.name}"`) && l.includes('"Deployment"'))
        .map((l) => JSON.parse(l) as { object: Loose });
      expect(logged.length).toBeGreaterThan(0);
      for (const { object } of logged) {
        expect(JSON.stringify(object)).not.toContain(PASSWORD);
        expect(object.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toBeUndefined();
        expect(object.fleetqRedacted).toContain('env.value');
        const env = object.spec.template.spec.containers[0].env;
        expect(env[0]).toEqual({ name: 'DB_PASSWORD', value: expect.stringMatching(/^fleetq-redacted:[0-9a-f]{16}$/) });
        expect(env[1]).toEqual({ name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } });
      }
    } finally {
      await forwarder.stop();
      await files.close?.();
      await rm(dir, { recursive: true, force: true });
      await ns.remove();
    }
  });
});
