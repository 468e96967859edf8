// Jest runs TypeScript as ESM through @swc/jest; `tsc --noEmit` does the type checking.
const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'es6' },
      sourceMaps: 'inline',
    },
  ],
};
const common = {
  testEnvironment: 'node',
  testEnvironmentOptions: { globalsCleanup: 'on' },
  extensionsToTreatAsEsm: ['.ts'],
  transform,
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // etcd's data under .sandbox/ has *.snap files that Jest would take for obsolete snapshots.
  modulePathIgnorePatterns: ['<rootDir>/.sandbox/', '<rootDir>/.cache/', '<rootDir>/dist/'],
};

export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      setupFilesAfterEnv: ['<rootDir>/test/helpers/long-timeout.ts'],
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/sandbox/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/sandbox/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      setupFilesAfterEnv: ['<rootDir>/test/helpers/long-timeout.ts'],
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/sandbox/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/sandbox/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'conformance',
      setupFilesAfterEnv: ['<rootDir>/test/helpers/long-timeout.ts'],
      testMatch: ['<rootDir>/test/conformance/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/sandbox/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/sandbox/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'chaos',
      // Faults with stated durations (Redis down 90 s, an apiserver stopped 5 min) run inside one test.
      setupFilesAfterEnv: ['<rootDir>/test/helpers/chaos/jest-timeout.ts'],
      testMatch: ['<rootDir>/test/chaos/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/sandbox/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/sandbox/global-teardown.ts',
    },
  ],
};
