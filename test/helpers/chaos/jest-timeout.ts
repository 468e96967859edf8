// The chaos suite's per-test ceiling: a test holds a fault for its stated duration (up to 5 minutes) and then
// waits for recovery, each wait with its own deadline.
import { jest } from '@jest/globals';

jest.setTimeout(Number(process.env.FLEETQ_CHAOS_TIMEOUT_MS ?? 600_000));
