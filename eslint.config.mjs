// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// Import boundaries, shared by the blocks below (a file's last matching block sets its patterns).
const APPS_APART = {
  group: ['../../*/src/**', '../../../apps/**', '**/apps/**'],
  message: 'Apps share code only through libs/.',
};
const SANDBOX_APART = {
  group: ['@lib/sandbox', '**/libs/sandbox/**'],
  message: 'The sandbox (fake platform and provider) is for npm start and tests, never in an app.',
};
const ENGINES_IMPORT_WORKFLOWS = {
  group: ['**/workflow-engine/**'],
  message: 'workflow-engine/ imports the workflows, not the reverse.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.infra/**', '.data/**', 'coverage/**', '**/*.mjs', '**/*.js'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unsafe-function-type': 'off',
    },
  },
  {
    // Apps never import each other; libs never import apps (tooling in scripts/ may).
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [APPS_APART, SANDBOX_APART],
        },
      ],
    },
  },
  {
    // The apps' and libraries' own tests drive the sandbox's fakes; only other apps stay off limits.
    files: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'libs/sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [APPS_APART],
        },
      ],
    },
  },
  {
    // Recovery's workflow engines depend on the workflows they run, never the other way round.
    files: ['apps/recovery/src/restore/**/*.ts', 'apps/recovery/src/antinuke/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [APPS_APART, ENGINES_IMPORT_WORKFLOWS, SANDBOX_APART],
        },
      ],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O.
    files: ['**/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'crypto', 'http', 'https', 'net', 'child_process'],
              message: 'Workflows must stay deterministic.',
            },
            ENGINES_IMPORT_WORKFLOWS,
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
