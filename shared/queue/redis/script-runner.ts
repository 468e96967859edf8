// Runs Lua scripts by SHA (EVALSHA), loading a script on NOSCRIPT: after a Redis restart or failover the
// script cache is empty, and the first call of each script pays one EVAL. The queue's scripts are the
// default set; other Redis stores (the object cache) pass their own.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { REDIS_SCRIPTS, type ScriptName } from './redis-scripts.js';

export type Reply = string | number | null | Reply[];

export class ScriptRunner<Name extends string = ScriptName> {
  private readonly shas: Readonly<Record<Name, string>>;

  constructor(
    private readonly redis: Redis,
    private readonly routingKey: string,
    private readonly header: readonly (string | number)[],
    private readonly scripts: Readonly<Record<Name, string>> = REDIS_SCRIPTS as Readonly<Record<Name, string>>,
  ) {
    this.shas = Object.fromEntries(
      Object.entries<string>(scripts).map(([name, text]) => [name, createHash('sha1').update(text).digest('hex')]),
    ) as Record<Name, string>;
  }

  async run(name: Name, ...args: (string | number)[]): Promise<Reply> {
    const argv = [...this.header, ...args];
    try {
      return (await this.redis.evalsha(this.shas[name], 1, this.routingKey, ...argv)) as Reply;
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await this.redis.eval(this.scripts[name], 1, this.routingKey, ...argv)) as Reply;
    }
  }
}
