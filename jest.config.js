/** @type {import('jest').Config} */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

const common = {
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^@lib/(.*)$': '<rootDir>/libs/$1/src' },
  testEnvironment: 'node',
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      setupFiles: ['<rootDir>/test/support/test-env.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/timeout.ts'],
    },
  ],
};
