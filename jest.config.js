// Jest runs the TypeScript sources as native ES modules (swc keeps decorator
// metadata, which Nest's dependency injection reads). The end-to-end files
// share one cluster (and operators that watch all of it), so `npm run
// test:e2e` runs them one at a time.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2023',
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const shared = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: {
    '^nestjs-kube-events$': '<rootDir>/libs/kube-events/src/index.ts',
    '^nestjs-kube-events/testing$': '<rootDir>/libs/kube-events/src/testing/index.ts',
    '^nestjs-kube-events/terminus$': '<rootDir>/libs/kube-events/src/terminus/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
};

export default {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/libs/**/*.spec.ts',
        '<rootDir>/apps/**/*.spec.ts',
        '<rootDir>/test/library/**/*.spec.ts',
        '<rootDir>/tools/**/*.spec.ts',
        '<rootDir>/bench/**/*.spec.ts',
      ],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/library/redaction-linear-time\\.spec\\.ts$'],
    },
    {
      // Compares the time of two sizes of one input: it runs on its own (`npm run test:unit` runs it after the rest,
      // which run several files at a time), so that no other test file shares the CPU with its measurements.
      ...shared,
      displayName: 'unit-alone',
      testMatch: ['<rootDir>/test/library/redaction-linear-time.spec.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      // 60 s per test (`testTimeout` is ignored inside a project).
      setupFilesAfterEnv: ['<rootDir>/test/e2e/jest-setup.ts'],
      // One local control plane (etcd + kube-apiserver) for the whole run;
      // test files reach it through sharedControlPlane() in
      // tools/control-plane/control-plane.ts.
      globalSetup: '<rootDir>/test/e2e/global-setup.ts',
      globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
    },
  ],
};
