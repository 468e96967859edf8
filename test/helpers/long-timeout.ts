// Integration and e2e tests wait on real clusters and services (each wait has its own deadline);
// the per-test ceiling is set here because Jest's testTimeout is not a per-project option.
import { jest } from '@jest/globals';

jest.setTimeout(Number(process.env.FLEETQ_TEST_TIMEOUT_MS ?? 300_000));
