// The lint gate (`npm run lint`, part of `npm test`): typescript-eslint's type-aware recommended rules plus the
// checks this codebase relies on (README, Development: "Lint"). Type-aware: the rules see tsc's types, through
// the same tsconfig.json that `tsc -p` checks.
import tseslint from 'typescript-eslint';

/** `JSON.parse(...) as T` and `x as unknown as T`: raw JSON is parsed with a schema at the edge, never cast. */
const NO_RAW_JSON_CASTS = [
  {
    selector: "TSAsExpression[typeAnnotation.type!='TSUnknownKeyword'] > CallExpression.expression[callee.object.name='JSON'][callee.property.name='parse']",
    message: 'Do not cast JSON.parse: parse raw JSON with a zod schema (protocol/ or the owning module) at the edge.',
  },
  {
    selector: 'TSAsExpression > TSAsExpression.expression[typeAnnotation.type="TSUnknownKeyword"]',
    message: 'No `as unknown as T`: build a value of the right type, or parse it with a schema.',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'protocol/schema/**', '.venv-py/**', '**/*.js', '**/*.mjs', '**/*.cjs', 'vitest.config.ts'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      'no-restricted-syntax': ['error', ...NO_RAW_JSON_CASTS],
      // Off: an async function with no await is how this code implements a Promise-returning interface; making
      // it a plain function would turn its throws into synchronous exceptions at the call site.
      '@typescript-eslint/require-await': 'off',
      // A promise may be rejected with what an abort signal or a caught error carries (forwarded as it is).
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Not yet fixed here: the lint fixes in these files were reverted at the last minute while an intermittent
    // failure of test/unit/mcp/remote.test.ts (SSE redial) was unexplained. Fix them and remove this block.
    files: ['src/mcp/client.ts', 'src/mcp/hub.ts', 'src/mcp/config.ts', 'src/mcp/prompt-tool.ts', 'src/mcp/sdk-transport.ts'],
    rules: {
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
      '@typescript-eslint/await-thenable': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    // The launcher is CommonJS run by bin/agentd, and loads built-ins with require() at chosen moments (under
    // V8's default flags): synchronously, which import() cannot.
    files: ['src/cli/launch.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read the daemon's output as raw JSON on purpose (they check what is on the wire, compared as whole
    // objects), so the any-flow rules and the JSON-cast ban would only force casts; the promise, any and
    // assertion rules still hold there.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      'no-restricted-syntax': 'off',
      // Tests print frame fields (unknown values) into labels and messages.
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
);
