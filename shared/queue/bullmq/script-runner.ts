// Runs the Lua scripts by SHA (EVALSHA), loading a script on NOSCRIPT: after a Redis restart or failover the
// cache is empty, and the first call of each script pays one EVAL.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { REDIS_SCRIPTS, type ScriptName } from './redis-scripts.js';

type Reply = string | number | null | Reply[];

const SHAS = Object.fromEntries(
  Object.entries(REDIS_SCRIPTS).map(([name, text]) => [name, createHash('sha1').update(text).digest('hex')]),
) as Record<ScriptName, string>;

export class ScriptRunner {
  constructor(
    private readonly redis: Redis,
    private readonly routingKey: string,
    private readonly header: readonly (string | number)[],
  ) {}

  async run(name: ScriptName, ...args: (string | number)[]): Promise<Reply> {
    const argv = [...this.header, ...args];
    try {
      return (await this.redis.evalsha(SHAS[name], 1, this.routingKey, ...argv)) as Reply;
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await this.redis.eval(REDIS_SCRIPTS[name], 1, this.routingKey, ...argv)) as Reply;
    }
  }
}
