// Runs Lua scripts by SHA (EVALSHA), loading a script on NOSCRIPT: after a Redis restart or failover the
// script cache is empty, and the first call of each script pays one EVAL. The one runner for every Redis store
// (the queue, the object cache, the API token bucket, the forwarder's lease and pool): each passes its own
// scripts (lua-loader.ts reads them from their .lua files).
import { createHash } from 'node:crypto';
import type { RedisClient } from '../queue/redis/redis-connection.js';

export type Reply = string | number | null | Reply[];

export class ScriptRunner<Name extends string = string> {
  private readonly shas: Readonly<Record<Name, string>>;
  private readonly keys: readonly string[];

  /**
   * `keys` are every call's KEYS (one string: a routing key only, for Redis Cluster); `header` goes before each
   * call's own arguments in ARGV.
   */
  constructor(
    private readonly redis: RedisClient,
    keys: string | readonly string[],
    private readonly header: readonly (string | number)[],
    private readonly scripts: Readonly<Record<Name, string>>,
  ) {
    this.keys = typeof keys === 'string' ? [keys] : [...keys];
    this.shas = Object.fromEntries(
      Object.entries<string>(scripts).map(([name, text]) => [name, createHash('sha1').update(text).digest('hex')]),
    ) as Record<Name, string>;
  }

  async run(name: Name, ...args: (string | number)[]): Promise<Reply> {
    const argv = [...this.header, ...args];
    try {
      return (await this.redis.evalsha(this.shas[name], this.keys.length, ...this.keys, ...argv)) as Reply;
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await this.redis.eval(this.scripts[name], this.keys.length, ...this.keys, ...argv)) as Reply;
    }
  }
}
