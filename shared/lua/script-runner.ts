// Runs Lua scripts by SHA (EVALSHA). Each runner sends a script's first call as EVAL, which loads it on the node
// serving the runner's keys, and every later call as EVALSHA. Calls made together then take effect in the order
// they were made: an EVALSHA sent before any EVAL of its script could come back NOSCRIPT while the call made just
// after it ran (another client loaded the script between them at the server), and its EVAL would run after that
// call. On NOSCRIPT (the script cache emptied by a restart, a failover or SCRIPT FLUSH) the call is sent again as
// EVAL, after the calls sent behind it: a store whose writes depend on their order sends them as one call (the
// cache's watch events: one applyMany per batch; an ADDED event filed after a later event's watermark reads as
// deleted since and is dropped, docs/benchmarks.md, the two Deployments never reconciled). The one runner for every Redis store
// (the queue, the object cache, the API token bucket, the forwarder's lease and pool): each passes its own scripts
// (lua-loader.ts reads them from their .lua files).
import { createHash } from 'node:crypto';
import type { RedisClient } from '../queue/redis/redis-connection.js';

export type Reply = string | number | null | Reply[];

export class ScriptRunner<Name extends string = string> {
  private readonly shas: Readonly<Record<Name, string>>;
  private readonly keys: readonly string[];
  /** Scripts whose first call (EVAL) was sent: later calls follow it on the same connection. */
  private readonly sent = new Set<Name>();

  /**
   * `keys` are every call's KEYS (one string: a routing key only, for Redis Cluster); `header` goes before each
   * call's own arguments in ARGV. The keys route every call to one node, over one connection.
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
    if (!this.sent.has(name)) {
      // Marked before the EVAL is sent, so a call made meanwhile goes as EVALSHA behind it.
      this.sent.add(name);
      try {
        return (await this.redis.eval(this.scripts[name], this.keys.length, ...this.keys, ...argv)) as Reply;
      } catch (err) {
        this.sent.delete(name); // perhaps not loaded (the connection failed): the next call sends it again
        throw err;
      }
    }
    try {
      return (await this.redis.evalsha(this.shas[name], this.keys.length, ...this.keys, ...argv)) as Reply;
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await this.redis.eval(this.scripts[name], this.keys.length, ...this.keys, ...argv)) as Reply;
    }
  }
}
