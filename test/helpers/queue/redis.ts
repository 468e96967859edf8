// Redis for integration tests: the redis-server already running at REDIS_URL (default 127.0.0.1:6379).
// Every test uses its own queue name, and removes its keys afterwards.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { makeTestPki } from '../sandbox/test-pki.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function testQueueName(): string {
  return `test-${randomUUID()}`;
}

export function redisClient(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
}

export type OwnRedis = {
  /** redis:// or rediss:// URL, with the password when one is set. */
  readonly url: string;
  readonly port: number;
  /** CA file to trust for a TLS server. */
  readonly caFile?: string;
  stop(): Promise<void>;
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A redis-server of the test's own on a free port (no persistence), for tests that flush, kill or restart
 * Redis, or need AUTH (`password`) or TLS (`tls`: certificates made with openssl in a temp dir).
 */
export async function startOwnRedis(o: { password?: string; tls?: boolean } = {}): Promise<OwnRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'fleetq-redis-'));
  const args = ['--save', '', '--appendonly', 'no', '--bind', '127.0.0.1', '--dir', dir];
  if (o.password !== undefined) args.push('--requirepass', o.password);
  let caFile: string | undefined;
  if (o.tls) {
    const pki = makeTestPki(dir, { caName: 'fleetq-test-ca' });
    caFile = pki.caFile;
    args.push('--port', '0', '--tls-port', String(port), '--tls-cert-file', pki.serverCertFile);
    args.push('--tls-key-file', pki.serverKeyFile, '--tls-ca-cert-file', caFile, '--tls-auth-clients', 'no');
  } else {
    args.push('--port', String(port));
  }
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${port}:\n${output}`)), 10_000);
    const onData = () => {
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
  const auth = o.password === undefined ? '' : `:${encodeURIComponent(o.password)}@`;
  return {
    url: `${o.tls ? 'rediss' : 'redis'}://${auth}127.0.0.1:${port}`,
    port,
    ...(caFile === undefined ? {} : { caFile }),
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Removes a queue's keys and the checkpoints and event log stored under its name (every key containing it). */
export async function deleteQueueKeys(url: string, queue: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 3 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${queue}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
