// Queue shards: the stable assignment of clusters to shard queues and the consumer's weighted fair rotation.
import { describe, expect, it } from '@jest/globals';
import {
  MAX_QUEUE_SHARDS,
  ShardRotation,
  shardIndexOf,
  shardQueueName,
  shardQueueNameOf,
  shardQueueNames,
} from '../../../shared/queue/queue-shards.js';

describe('queue shard names', () => {
  it('one shard is the queue name itself', () => {
    expect(shardQueueNames('fleetq', 1)).toEqual(['fleetq']);
    expect(shardQueueNameOf('fleetq', 1, 'any-cluster')).toBe('fleetq');
  });

  it('shards 2..N are <queue>-s<i>', () => {
    expect(shardQueueNames('fleetq', 3)).toEqual(['fleetq', 'fleetq-s2', 'fleetq-s3']);
    expect(shardQueueName('work', 9)).toBe('work-s10');
  });

  it.each([0, -1, 1.5, MAX_QUEUE_SHARDS + 1, Number.NaN])('refuses %p shards', (n) => {
    expect(() => shardQueueNames('fleetq', n)).toThrow(RangeError);
    expect(() => shardIndexOf('a', n)).toThrow(RangeError);
  });
});

describe('shardIndexOf', () => {
  it('is a stable function of the cluster name and N (pinned values: changing them moves clusters)', () => {
    expect(['theta', 'alpha', 'epsilon', 'beta', 'gamma', 'delta'].map((c) => shardIndexOf(c, 3))).toEqual([
      0, 1, 1, 2, 2, 2,
    ]);
    expect(shardIndexOf('delta', 2)).toBe(0);
    expect(shardIndexOf('anything', 1)).toBe(0);
  });

  it('spreads many clusters about evenly', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[shardIndexOf(`cluster-${i}`, 4)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(900);
  });
});

/** Serves `rounds` hand-outs, each from the first shard in order that `hasWork`, reporting its weight. */
function simulate(rotation: ShardRotation, weights: number[], rounds: number): number[] {
  const served = weights.map(() => 0);
  for (let r = 0; r < rounds; r++) {
    for (const shard of rotation.order()) {
      if (weights[shard]! > 0) {
        rotation.served(shard, weights[shard]!);
        served[shard]!++;
        break;
      }
      rotation.empty(shard);
    }
  }
  return served;
}

describe('ShardRotation', () => {
  it('goes round equal shards in turn', () => {
    const rotation = new ShardRotation(3);
    const order: number[] = [];
    for (let i = 0; i < 6; i++) {
      const shard = rotation.first();
      order.push(shard);
      rotation.served(shard, 1);
    }
    expect(order).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('serves each shard in proportion to its clusters with ready keys (equal share per cluster)', () => {
    const served = simulate(new ShardRotation(3), [1, 2, 3], 600);
    [100, 200, 300].forEach((want, i) => expect(Math.abs(served[i]! - want)).toBeLessThanOrEqual(1));
  });

  it('never starves a one-cluster shard beside a shard of many', () => {
    const rotation = new ShardRotation(2);
    const gaps: number[] = [];
    let since = 0;
    for (let r = 0; r < 1000; r++) {
      const shard = rotation.first();
      rotation.served(shard, shard === 0 ? 1 : 50);
      since++;
      if (shard === 0) {
        gaps.push(since);
        since = 0;
      }
    }
    expect(Math.max(...gaps)).toBeLessThanOrEqual(52); // 50 of shard 1, give or take float ties
    expect(gaps.length).toBeGreaterThanOrEqual(19);
  });

  it('an idle shard earns no burst when its keys come back, and is asked again after one turn', () => {
    const rotation = new ShardRotation(2);
    simulate(rotation, [1, 0], 100); // shard 1 idle all along
    expect(simulate(rotation, [1, 1], 10)).toEqual([5, 5]);
  });

  it('asks an idle shard again a turn later while another shard is busy', () => {
    const rotation = new ShardRotation(2);
    const asked: number[] = [];
    for (let r = 0; r < 20; r++) {
      for (const shard of rotation.order()) {
        asked.push(shard);
        if (shard === 0) {
          rotation.served(0, 4);
          break;
        }
        rotation.empty(1);
      }
    }
    const probes = asked.filter((s) => s === 1).length;
    expect(probes).toBeGreaterThanOrEqual(4); // a probe per turn of shard 0 (4 hand-outs of weight 4)
    expect(probes).toBeLessThanOrEqual(6);
  });
});
