import { describe, expect, it } from '@jest/globals';
import { listOf, nameFlags, nearest, oneOf, UsageError } from '../../../functions/cli/common.js';

const KINDS = ['Deployment', 'ReplicaSet', 'StatefulSet', 'Job'] as const;

describe('nearest, oneOf, listOf', () => {
  it('suggests the nearest valid value for a typo, and none for another word', () => {
    expect(nearest('Deploymnet', KINDS)).toBe('Deployment');
    expect(nearest('Replicaset', KINDS)).toBe('ReplicaSet');
    expect(nearest('stauts', ['status', 'dlq', 'describe'])).toBe('status');
    expect(nearest('Pod', KINDS)).toBeUndefined();
  });

  it('refuses a value not in the list as bad usage, naming the flag, the nearest and the valid ones', () => {
    expect(oneOf('--kind', 'Job', KINDS, 'kind')).toBe('Job');
    let err: unknown;
    try {
      oneOf('--kind', 'Deploymnet', KINDS, 'kind');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(
      '--kind "Deploymnet": not a valid kind; did you mean Deployment? (valid: Deployment, ReplicaSet, StatefulSet, Job)',
    );
    expect(() => oneOf('--kind', 'Pod', KINDS, 'kind')).toThrow('--kind "Pod": not a valid kind (valid: ');
  });

  it('checks every item of a comma-separated list', () => {
    expect(listOf('--owns', 'Deployment, Job', KINDS)).toEqual(['Deployment', 'Job']);
    expect(() => listOf('--owns', 'Deployment,Replicaset', KINDS, 'kind')).toThrow('did you mean ReplicaSet?');
    expect(() => listOf('--owns', ',', KINDS)).toThrow('--owns: empty');
  });

  it('names the flag the user typed in a configuration error', () => {
    const message = 'invalid configuration\n  FLEETQ_CONCURRENCY="abc": Invalid input\n  REDIS_URL="x": bad';
    expect(nameFlags(message, { FLEETQ_CONCURRENCY: '--concurrency' })).toBe(
      'invalid configuration\n  --concurrency "abc": Invalid input\n  REDIS_URL="x": bad',
    );
  });
});
