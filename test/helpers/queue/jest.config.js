// Runs the queue integration tests without the sandbox clusters the shared integration globalSetup starts:
//   npm run jest -- --config test/helpers/queue/jest.config.js
// They need only Redis (REDIS_URL, default redis://127.0.0.1:6379) and start their own fauxqs.
import base from '../../../jest.config.js';

const integration = base.projects.find((p) => p.displayName === 'integration');
const { globalSetup: _setup, globalTeardown: _teardown, ...common } = integration;

export default {
  ...common,
  rootDir: '../../..',
  displayName: 'queue',
  testMatch: ['<rootDir>/test/integration/work-queue*.test.ts', '<rootDir>/test/integration/queue-property*.test.ts'],
  testTimeout: 120_000,
};
