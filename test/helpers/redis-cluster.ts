// A real Redis Cluster for tests: six redis-server processes (--cluster-enabled yes, no persistence) on free
// loopback ports in temp dirs, joined by `redis-cli --cluster create --cluster-replicas 1` into three primaries
// with one replica each. startRedisCluster returns once every node says cluster_state:ok, the slots cover all
// 16384 and every replica's link to its primary is up (a few seconds); stop() kills them all and removes the
// dirs, and a start that fails stops what it started. killPrimary() is for failover tests: it kills one primary
// and says which replica should take over; waitForFailover() waits until that replica is a primary.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { connectRedis, type RedisClient } from '../../shared/queue/redis/redis-connection.js';

const HOST = '127.0.0.1';
const SLOTS = 16384;

export type RedisClusterNode = {
  /** The client port (the cluster bus port is another free port, `--cluster-port`). */
  readonly port: number;
  /** The node id CLUSTER NODES shows. */
  readonly id: string;
  /** As last read (nodes() reads again): a primary, or a replica of `primaryId`. */
  readonly role: 'primary' | 'replica';
  readonly primaryId?: string;
  /** Whether this helper killed the node. */
  readonly killed: boolean;
};

export type RedisClusterOptions = {
  /** Cluster node timeout (ms): how long a primary must be unreachable before its replica takes over. */
  readonly nodeTimeoutMs?: number;
  /** Deadline for the whole start. Default 30 000. */
  readonly startTimeoutMs?: number;
  /** Every node's AUTH password (requirepass, and masterauth for its replica); in `url`. Default: none. */
  readonly password?: string;
};

export type RedisCluster = {
  /**
   * Every node's seed, comma-separated: `redis://[:password@]127.0.0.1:p1,127.0.0.1:p2,...` (connectRedis makes a
   * Cluster).
   */
  readonly url: string;
  /** The six client ports, in start order. */
  readonly ports: readonly number[];
  /** A Cluster client (the caller closes it). */
  client(): RedisClient;
  /** The nodes as CLUSTER NODES says now, read from a node that is up. */
  nodes(): Promise<RedisClusterNode[]>;
  /** The primary serving `key`'s slot now. */
  primaryFor(key: string): Promise<RedisClusterNode>;
  /**
   * Kills one primary (SIGKILL; `port` or, by default, the first primary), returning it and its replica (the
   * one that should be promoted).
   */
  killPrimary(port?: number): Promise<{ readonly primary: RedisClusterNode; readonly replica: RedisClusterNode }>;
  /** Waits (with a deadline) until the node at `port` is a primary and every live node says cluster_state:ok. */
  waitForFailover(replicaPort: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
};

/** Free loopback ports, each held until all are found so none is handed out twice. */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, async () => {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, HOST, resolve);
      });
      return server;
    }),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

type Auth = { readonly password?: string | undefined };

type Proc = { readonly port: number; readonly child: ChildProcess; output: string; killed: boolean };

function startNode(port: number, busPort: number, dir: string, nodeTimeoutMs: number, password?: string): Proc {
  const args = [
    ...(password === undefined ? [] : ['--requirepass', password, '--masterauth', password]),
    '--port',
    String(port),
    '--cluster-port',
    String(busPort),
    '--bind',
    HOST,
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, `nodes-${port}.conf`),
    '--cluster-node-timeout',
    String(nodeTimeoutMs),
    '--save',
    '',
    '--appendonly',
    'no',
    // A replica's first sync starts at once (the default waits 5 s for more replicas to share it).
    '--repl-diskless-sync-delay',
    '0',
    '--dir',
    dir,
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const proc: Proc = { port, child, output: '', killed: false };
  const keep = (d: Buffer): void => {
    proc.output = (proc.output + d.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return proc;
}

async function untilReady(proc: Proc, deadline: number): Promise<void> {
  if (proc.output.includes('Ready to accept connections')) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server on ${proc.port} not ready in time:\n${proc.output}`)),
      Math.max(0, deadline - Date.now()),
    );
    const onData = (): void => {
      if (!proc.output.includes('Ready to accept connections')) return;
      clearTimeout(timer);
      proc.child.stdout?.off('data', onData);
      proc.child.off('exit', onExit);
      resolve();
    };
    const onExit = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`redis-server on ${proc.port} exited with ${code}:\n${proc.output}`));
    };
    proc.child.stdout?.on('data', onData);
    proc.child.once('exit', onExit);
    onData();
  });
}

function run(cmd: string, args: string[], deadline: number, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), Math.max(0, deadline - Date.now()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

/** A connection to one node, not yet connected: no retries, no reconnecting. */
function nodeConnection(port: number, password: string | undefined): Redis {
  return new Redis({
    host: HOST,
    port,
    ...(password !== undefined && { password }),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
}

/** One command to one node on a short-lived connection. */
async function ask(auth: Auth, port: number, ...command: [string, ...string[]]): Promise<string> {
  const node = nodeConnection(port, auth.password);
  node.on('error', () => undefined);
  try {
    await node.connect();
    return String(await node.call(...command));
  } finally {
    node.disconnect();
  }
}

/** Parses CLUSTER NODES: id, port, role and primary of each node. */
function parseNodes(text: string, killedPorts: ReadonlySet<number>): RedisClusterNode[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id = '', address = '', flags = '', primary = '-'] = line.split(' ');
      const port = Number(/:(\d+)@/.exec(address)?.[1]);
      const replica = flags.split(',').includes('slave');
      return {
        port,
        id,
        role: replica ? ('replica' as const) : ('primary' as const),
        ...(replica && primary !== '-' && { primaryId: primary }),
        killed: killedPorts.has(port),
      };
    });
}

async function waitFor(what: string, deadline: number, check: () => Promise<boolean>): Promise<void> {
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
      last = undefined;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`Redis Cluster: ${what} not reached in time${last === undefined ? '' : `: ${String(last)}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function coveredSlots(auth: Auth, port: number): Promise<number> {
  const node = nodeConnection(port, auth.password);
  node.on('error', () => undefined);
  try {
    await node.connect();
    const ranges = (await node.call('CLUSTER', 'SLOTS')) as [number, number, ...unknown[]][];
    return ranges.reduce((n, [from, to]) => n + (to - from + 1), 0);
  } finally {
    node.disconnect();
  }
}

/** Starts a six-node Redis Cluster (three primaries, one replica each); see the top of this file. */
export async function startRedisCluster(o: RedisClusterOptions = {}): Promise<RedisCluster> {
  const deadline = Date.now() + (o.startTimeoutMs ?? 30_000);
  const nodeTimeoutMs = o.nodeTimeoutMs ?? 2_000;
  const auth: Auth = { password: o.password };
  const dir = await mkdtemp(join(tmpdir(), 'fleetq-redis-cluster-'));
  const procs: Proc[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(
      procs.map(async (p) => {
        if (p.child.exitCode !== null || p.child.signalCode !== null) return;
        const exited = new Promise((resolve) => p.child.once('exit', resolve));
        p.child.kill('SIGKILL');
        await exited;
      }),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const free = await freePorts(12);
    const ports = free.slice(0, 6);
    ports.forEach((port, i) => procs.push(startNode(port, free[6 + i] as number, dir, nodeTimeoutMs, o.password)));
    await Promise.all(procs.map((p) => untilReady(p, deadline)));
    await run(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `${HOST}:${p}`), '--cluster-replicas', '1', '--cluster-yes'],
      deadline,
      o.password === undefined ? {} : { REDISCLI_AUTH: o.password },
    );
    await waitFor('cluster_state:ok on every node with all slots covered', deadline, async () => {
      for (const port of ports) {
        if (!/^cluster_state:ok\r?$/m.test(await ask(auth, port, 'CLUSTER', 'INFO'))) return false;
        if ((await coveredSlots(auth, port)) !== SLOTS) return false;
      }
      return true;
    });
    await waitFor('every replica linked to its primary', deadline, async () => {
      const nodes = parseNodes(await ask(auth, ports[0] as number, 'CLUSTER', 'NODES'), new Set());
      if (nodes.filter((n) => n.role === 'replica').length !== 3) return false;
      for (const n of nodes.filter((m) => m.role === 'replica')) {
        if (!/^master_link_status:up\r?$/m.test(await ask(auth, n.port, 'INFO', 'replication'))) return false;
      }
      return true;
    });
  } catch (err) {
    await stop();
    throw err;
  }

  const ports = procs.map((p) => p.port);
  const killedPorts = new Set<number>();
  const live = (): number[] => ports.filter((p) => !killedPorts.has(p));
  const nodes = async (): Promise<RedisClusterNode[]> => {
    let lastErr: unknown;
    for (const port of live()) {
      try {
        return parseNodes(await ask(auth, port, 'CLUSTER', 'NODES'), killedPorts);
      } catch (err) {
        lastErr = err;
      }
    }
    throw new Error('no Redis Cluster node answered CLUSTER NODES', { cause: lastErr });
  };
  const userinfo = o.password === undefined ? '' : `:${encodeURIComponent(o.password)}@`;
  const url = `redis://${userinfo}${ports.map((p) => `${HOST}:${p}`).join(',')}`;
  const cluster: RedisCluster = {
    url,
    ports,
    client: () => connectRedis(url, {}, { maxRetriesPerRequest: 3 }),
    nodes,
    async primaryFor(key) {
      const slot = Number(await ask(auth, live()[0] as number, 'CLUSTER', 'KEYSLOT', key));
      const node = nodeConnection(live()[0] as number, auth.password);
      node.on('error', () => undefined);
      let port: number;
      try {
        await node.connect();
        const ranges = (await node.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, ...unknown[]]][];
        const range = ranges.find(([from, to]) => slot >= from && slot <= to);
        if (!range) throw new Error(`slot ${slot} of ${JSON.stringify(key)} is not served`);
        port = Number(range[2][1]);
      } finally {
        node.disconnect();
      }
      const found = (await nodes()).find((n) => n.port === port);
      if (!found) throw new Error(`no node on port ${port}`);
      return found;
    },
    async killPrimary(port) {
      const all = await nodes();
      const primary = all.find((n) => n.role === 'primary' && !n.killed && (port === undefined || n.port === port));
      if (!primary) throw new Error(`no live primary${port === undefined ? '' : ` on port ${port}`}`);
      const replica = all.find((n) => n.primaryId === primary.id && !n.killed);
      if (!replica) throw new Error(`primary on ${primary.port} has no live replica`);
      const proc = procs.find((p) => p.port === primary.port) as Proc;
      const exited = new Promise((resolve) => proc.child.once('exit', resolve));
      proc.child.kill('SIGKILL');
      await exited;
      proc.killed = true;
      killedPorts.add(primary.port);
      return { primary: { ...primary, killed: true }, replica };
    },
    async waitForFailover(replicaPort, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      await waitFor(`failover to ${replicaPort}`, until, async () => {
        if (!/^role:master\r?$/m.test(await ask(auth, replicaPort, 'INFO', 'replication'))) return false;
        for (const port of live()) {
          if (!/^cluster_state:ok\r?$/m.test(await ask(auth, port, 'CLUSTER', 'INFO'))) return false;
        }
        return true;
      });
    },
    stop,
  };
  return cluster;
}
