// fleetq's JobSet defaulting and validation against upstream's webhook: every case of jobset-cases.ts (named after
// jobset v0.12.0's TestJobSetDefaulting, TestValidateCreate and TestValidateUpdate) answered by fleetq as
// upstream's own code answered it (jobset-golden.json; upstream-golden/README.md says how it is produced).
import { describe, expect, it } from '@jest/globals';
import { aggregateText, invalidStatus } from '../../../shared/admission/field-errors.js';
import { defaultJobSet } from '../../../shared/admission/jobset-defaults.js';
import { validateJobSetUpdate } from '../../../shared/admission/jobset-update-validation.js';
import { validateJobSetCreate } from '../../../shared/admission/jobset-validation.js';
import { CREATE_CASES, DEFAULT_CASES, GATED_CASES, UPDATE_CASES, type GoldenCase } from './jobset-cases.js';
import { upstreamAnswers, withoutEmpty } from './golden-answers.js';

type Golden = { name: string; defaulted?: unknown; message: string; code?: number };
const { upstream } = upstreamAnswers<Golden>(new URL('./jobset-golden.json', import.meta.url));

/**
 * Where upstream prints a whole spec.replicatedJobs as the refused value (immutability, a volume claim without a
 * mount), it prints Go's struct encoding (`resources: {}`, its field order): compare the path and the reason.
 */
const maskReplicatedJobsValue = (message: string) =>
  message.replace(/spec\.replicatedJobs: Invalid value: \[.*\]: /, 'spec.replicatedJobs: Invalid value: <value>: ');

function fleetqMessage(c: GoldenCase): string {
  const errors =
    c.op === 'create'
      ? validateJobSetCreate(c.object, c.features)
      : c.op === 'update'
        ? validateJobSetUpdate(c.oldObject, c.object, c.features)
        : [];
  if (errors.length === 0) return '';
  return invalidStatus('jobset.x-k8s.io', 'JobSet', c.object.metadata.name ?? '', errors).message;
}

describe('JobSet defaulting, as upstream Default()', () => {
  it.each(DEFAULT_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const { jobSet, patch } = defaultJobSet(c.object);
    expect(withoutEmpty(jobSet.spec)).toEqual(withoutEmpty(upstream(c.name).defaulted));
    // The patch turns the request's object into the defaulted one.
    const patched = structuredClone(c.object) as unknown as Record<string, unknown>;
    for (const op of patch) {
      const segments = op.path.split('/').slice(1);
      let node = patched as Record<string, unknown>;
      for (const s of segments.slice(0, -1)) node = node[s] as Record<string, unknown>;
      node[segments[segments.length - 1]!] = op.value;
    }
    expect(patched).toEqual(jobSet);
    expect(c.object).not.toBe(jobSet);
  });
});

describe('JobSet create validation, as upstream ValidateCreate', () => {
  it.each(CREATE_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(maskReplicatedJobsValue(fleetqMessage(c))).toBe(maskReplicatedJobsValue(upstream(c.name).message));
  });
});

describe('JobSet update validation, as upstream ValidateUpdate', () => {
  it.each(UPDATE_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(maskReplicatedJobsValue(fleetqMessage(c))).toBe(maskReplicatedJobsValue(upstream(c.name).message));
  });
});

describe('with alpha feature gates on, as upstream with the same gates', () => {
  it.each(GATED_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(maskReplicatedJobsValue(fleetqMessage(c))).toBe(maskReplicatedJobsValue(upstream(c.name).message));
  });
});

describe('the error aggregate', () => {
  it('prints one error bare and drops repeated texts', () => {
    const e = { type: 'InternalError' as const, field: '<nil>', detail: 'x' };
    expect(aggregateText([e])).toBe('<nil>: Internal error: x');
    expect(aggregateText([e, e])).toBe('<nil>: Internal error: x');
    expect(aggregateText([e, { ...e, detail: 'y' }])).toBe('[<nil>: Internal error: x, <nil>: Internal error: y]');
  });
});
