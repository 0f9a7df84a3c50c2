// @ts-check
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['**/dist/', '**/node_modules/', 'coverage/', 'docs/api/', '.cache/'] },
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Counts, sizes and durations belong in messages; objects and unions still need an explicit String().
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `() => void fn()` and `(x) => fn(x)` callbacks are the idiom for listeners and timers.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Nest modules are empty classes that exist for their @Module() decorator.
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true }],
      // client-node's models (V1ObjectMeta, EventsV1Event…) are classes used as plain JSON shapes.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // The same models hold plain JSON: spreading one is how a changed copy of it is made.
      '@typescript-eslint/no-misused-spread': 'off',
      // An empty string means unset (an empty environment variable, an empty Kubernetes field): `||` says so.
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
      // An async method that implements a Promise-returning contract turns a throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // `!` states an invariant the types cannot carry (a planned batch, a tracked series' object); strictNullChecks covers the rest.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // A caught error or an abort signal's reason (typed unknown, any) is passed on as it came.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // It trusts declared types, while the library checks what JavaScript callers really pass, indexes arrays
      // without noUncheckedIndexedAccess, and rereads state that callbacks change across an await.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // A type parameter on the result alone says what a loader or a lookup by name returns, for the caller to pick.
      '@typescript-eslint/no-unnecessary-type-parameters': 'off',
      // `void | 'requeue'` is the result of a handler that may return nothing at all.
      '@typescript-eslint/no-invalid-void-type': 'off',
      // A variable that a closure reads before its one assignment stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A leading underscore names a parameter or binding kept for its position or to leave it out of a rest.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**', 'bench/**'],
    rules: {
      // Jest's asymmetric matchers (expect.any, expect.objectContaining…) are typed any.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      // Tests read a method's name, length and metadata without calling it.
      '@typescript-eslint/unbound-method': 'off',
      // A no-op fake (a logger that discards, a stop() with nothing to stop) is the point of it.
      '@typescript-eslint/no-empty-function': 'off',
      // Tests set and restore environment variables and strip fields by name.
      '@typescript-eslint/no-dynamic-delete': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  prettier,
);
