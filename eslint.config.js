// ESLint flat config: the recommended rule sets of ESLint, typescript-eslint (syntactic only, to stay
// fast; tsc and svelte-check do the type checking) and eslint-plugin-svelte.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import ts from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      'dist/',
      'package/',
      'coverage/',
      'node_modules/',
      '.stryker-tmp/',
      'reports/',
      'examples/sveltekit/build/',
      'examples/sveltekit/.svelte-kit/',
    ],
  },
  js.configs.recommended,
  ts.configs.recommended,
  svelte.configs.recommended,
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: ts.parser, extraFileExtensions: ['.svelte'] } },
  },
  { files: ['src/**', 'examples/**', 'tests/consumer/**'], languageOptions: { globals: globals.browser } },
  { files: ['idp/**', 'scripts/**', 'tests/**', '*.config.{js,ts}'], languageOptions: { globals: globals.node } },
  {
    rules: {
      // The sanitisers and the hostile oracle match control characters on purpose: that is their job.
      'no-control-regex': 'off',
      // Destructuring a property away to drop it from a copy is the idiom for omitting a key.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
);
