// Lint: typescript-eslint with type information, plus the layering rules of STYLE.md (b):
// src/core is pure (no vscode, chokidar or fs), src/io and src/cli never touch vscode,
// and the webview and protocol code stay free of Node and the host.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const pure = {
  paths: [{ name: 'vscode', message: 'src/core is vscode-free; put host code in src/vscode.' }],
  patterns: [
    { group: ['chokidar', 'node:fs', 'node:fs/*', 'fs', 'fs/*', 'node:child_process', 'node:net'], message: 'src/core is pure; effects live in src/io.' },
    { group: ['**/io/**', '**/vscode/**', '**/cli/**'], message: 'src/core may only import src/core.' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'media/dist/**', 'node_modules/**', '**/*.js', '**/*.mjs', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      curly: 'error',
      eqeqeq: 'error',
      'no-console': 'error',
    },
  },
  { files: ['src/core/**/*.ts'], rules: { '@typescript-eslint/no-restricted-imports': ['error', pure] } },
  {
    // Notifications go through src/vscode/notify.ts, which keeps text a transcript chose from
    // becoming a command link (see plainMessage).
    files: ['src/**/*.ts'],
    ignores: ['src/vscode/notify.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name=/^show(Information|Warning|Error)Message$/]',
          message: 'Use notify.info/warn/error (src/vscode/notify.ts): a notification renders [label](command:…) in its text as a link that runs a command.',
        },
      ],
    },
  },
  {
    files: ['src/io/**/*.ts', 'src/cli/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: ['vscode'], patterns: ['**/vscode/**'] }] },
  },
  {
    files: ['src/protocol/**/*.ts', 'src/webview/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: ['vscode', 'chokidar'], patterns: ['node:*', '**/core/**', '**/io/**', '**/vscode/**', '**/cli/**'] },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-console': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
