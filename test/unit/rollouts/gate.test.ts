// The pin each cluster should carry, read off the ledger: the newest entry that moved the cluster decides.
import { describe, expect, it } from '@jest/globals';
import { desiredPin, pinPatch } from '../../../shared/rollouts/gate.js';
import type { ClusterObservation } from '../../../shared/rollouts/observation.js';
import {
  PIN_ADMITTED_ANNOTATION,
  PIN_FROZEN_ANNOTATION,
  PIN_ROLLOUT_ANNOTATION,
} from '../../../shared/rollouts/pin.js';
import type { ClusterRecord, FleetRolloutStatus, RevisionLedger } from '../../../shared/rollouts/types.js';

const T = '2026-01-01T00:00:00.000Z';
const entry = (revision: string, phase: RevisionLedger['phase'], clusters: ClusterRecord[]): RevisionLedger => ({
  revision,
  attempt: 1,
  startedAt: T,
  phase,
  wave: '',
  clusters,
});
const obs = (o: Partial<ClusterObservation> = {}): ClusterObservation => ({
  cluster: 'c1',
  present: true,
  revision: 'r3',
  previousRevision: 'r2',
  generation: 1,
  observedGeneration: 1,
  available: false,
  ...o,
});

describe('desiredPin', () => {
  it('a cluster not admitted in the newest entry keeps the revision an older entry admitted', () => {
    const status: FleetRolloutStatus = {
      revisions: [
        entry('r1', 'Succeeded', [{ cluster: 'c1', wave: 'a', admittedAt: T, verdict: 'Succeeded' }]),
        entry('r2', 'Superseded', [{ cluster: 'c1', wave: 'a' }]),
        entry('r3', 'Progressing', [{ cluster: 'c1', wave: 'b' }]),
      ],
    };
    expect(desiredPin(status, 'c1', obs())).toEqual({ admitted: 'r1', frozen: false });
  });

  it('rolled back: the revision it returned to; failed and not rolled back: frozen at the revision', () => {
    const status: FleetRolloutStatus = {
      revisions: [
        entry('r3', 'Progressing', [
          { cluster: 'c1', wave: 'a', admittedAt: T, verdict: 'RolledBack', previousRevision: 'r2' },
          { cluster: 'c2', wave: 'a', admittedAt: T, verdict: 'Failed', failedAt: T },
        ]),
      ],
    };
    expect(desiredPin(status, 'c1', obs())).toEqual({ admitted: 'r2', frozen: false });
    expect(desiredPin(status, 'c2', obs({ cluster: 'c2' }))).toEqual({ admitted: 'r3', frozen: true });
  });

  it('a halted rollout freezes the clusters it had in flight, not those that succeeded', () => {
    const status: FleetRolloutStatus = {
      revisions: [
        entry('r3', 'Halted', [
          { cluster: 'c1', wave: 'a', admittedAt: T },
          { cluster: 'c2', wave: 'a', admittedAt: T, verdict: 'Succeeded' },
        ]),
      ],
    };
    expect(desiredPin(status, 'c1', obs())).toEqual({ admitted: 'r3', frozen: true });
    expect(desiredPin(status, 'c2', obs({ cluster: 'c2' }))).toEqual({ admitted: 'r3', frozen: false });
  });

  it('never admitted: held at its previous revision, or at none for a new workload; unknown when unreachable', () => {
    const status: FleetRolloutStatus = { revisions: [entry('r3', 'Progressing', [{ cluster: 'c1', wave: 'a' }])] };
    expect(desiredPin(status, 'c1', obs())).toEqual({ admitted: 'r2', frozen: false });
    expect(desiredPin(status, 'c1', obs({ previousRevision: '' }))).toEqual({ admitted: '', frozen: false });
    expect(desiredPin(status, 'c1', obs({ present: false, unreachable: true }))).toEqual({
      admitted: '',
      frozen: false,
    });
  });
});

describe('pinPatch', () => {
  const current = { [PIN_ROLLOUT_ANNOTATION]: 'ns/web', [PIN_ADMITTED_ANNOTATION]: 'r2', other: 'kept' };

  it('is undefined when the annotations already say it, and names every pin annotation when they do not', () => {
    expect(pinPatch('ns/web', current, { admitted: 'r2', frozen: false })).toBeUndefined();
    expect(pinPatch('ns/web', current, { admitted: 'r3', frozen: true })).toEqual({
      [PIN_ROLLOUT_ANNOTATION]: 'ns/web',
      [PIN_ADMITTED_ANNOTATION]: 'r3',
      [PIN_FROZEN_ANNOTATION]: 'r3',
    });
  });

  it('removes the three annotations when the rollout no longer paces the target', () => {
    expect(pinPatch('ns/web', current, undefined)).toEqual({
      [PIN_ROLLOUT_ANNOTATION]: null,
      [PIN_ADMITTED_ANNOTATION]: null,
      [PIN_FROZEN_ANNOTATION]: null,
    });
    expect(pinPatch('ns/web', { other: 'kept' }, undefined)).toBeUndefined();
  });
});
