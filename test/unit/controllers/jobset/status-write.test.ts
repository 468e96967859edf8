// The status the planner writes is what upstream's encoding of JobSetStatus writes: `restarts` has no omitempty
// (jobset_types.go, v0.12.0), so a JobSet created without status gets `restarts: 0` with its first status write.
// Found by the JobSet conformance suite (status.restarts 0 upstream, absent under fleetq).
import { describe, expect, it } from '@jest/globals';
import { planJobSet } from '../../../../shared/controllers/jobset/plan.js';
import type { JobSet } from '../../../../shared/controllers/jobset/types.js';
import { aJobSet, NOW, observed } from './builders.js';

/** A JobSet as the apiserver returns it right after its create: no status at all. */
function created(): JobSet {
  const { status: _status, ...js } = aJobSet();
  return js;
}

describe('the JobSet status write', () => {
  it('carries restarts 0 for a JobSet read without status', () => {
    const writes = planJobSet(observed(created(), []), NOW).actions.flatMap((a) =>
      a.type === 'updateStatus' && a.object.kind === 'JobSet' ? [a.object as JobSet] : [],
    );
    expect(writes).toHaveLength(1);
    expect(writes[0]?.status).toMatchObject({
      restarts: 0,
      replicatedJobsStatus: [expect.objectContaining({ name: 'replicated-job' })],
    });
  });
});
