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
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,standalone}/**/*.spec.ts', '<rootDir>/test/deploy/**/*.spec.ts'],
    },
    {
      ...common,
      // `npm run test:contract`: the fake platform's answers and the product's request bodies against
      // Discord's published schemas (discord-api-spec's Zod build); the fake runs in process, so no
      // infrastructure. The spec's build is ES modules only: it is mapped to its file and compiled too.
      displayName: 'contract',
      testMatch: ['<rootDir>/test/contract/**/*.test.ts'],
      transform: { ...common.transform, 'discord-api-spec\\.zod\\.js$': swc },
      transformIgnorePatterns: ['/node_modules/(?!discord-api-spec/)'],
      moduleNameMapper: {
        ...common.moduleNameMapper,
        '^discord-api-spec/zod$': '<rootDir>/node_modules/discord-api-spec/build/discord-api-spec.zod.js',
      },
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      setupFiles: ['<rootDir>/test/support/test-env.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/timeout.ts'],
    },
    {
      ...common,
      // `npm run test:security`: each attack of the security review, performed against the real apps.
      displayName: 'security',
      testMatch: ['<rootDir>/test/security/**/*.test.ts'],
      setupFiles: ['<rootDir>/test/support/test-env.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/timeout.ts'],
    },
    {
      ...common,
      // `npm run test:faults`: outages, crashes, bad input and load against the distributed setup.
      displayName: 'faults',
      testMatch: ['<rootDir>/test/faults/**/*.fault.ts'],
      setupFiles: ['<rootDir>/test/support/test-env.ts'],
      globalSetup: '<rootDir>/test/faults/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/faults/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/timeout.ts'],
    },
  ],
};
