// Redis for integration tests: the redis-server already running at REDIS_URL (default 127.0.0.1:6379).
// Every test uses its own queue name, and removes its keys afterwards.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function testQueueName(): string {
  return `test-${randomUUID()}`;
}

export function redisClient(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
}
