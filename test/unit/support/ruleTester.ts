import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RuleModule } from '../../../src/core/engine/rule';
import type { Severity } from '../../../src/core/model/finding';
import { run } from './run';

export interface ValidCase {
  name: string;
  input: string;
}

export interface ExpectedError {
  messageId: string;
  line: number;
  column?: number;
  endColumn?: number;
  severity?: Severity;
  /** What the message must say. */
  message?: RegExp;
}

export interface InvalidCase {
  name: string;
  input: string;
  errors: ExpectedError[];
}

/**
 * ESLint's RuleTester contract: a table of inputs that must give no finding and inputs that
 * must give exactly these findings (rule message ids and positions, never message text).
 * Only the rule under test runs, through the real adapters and engine.
 */
export function ruleTester(rule: RuleModule, cases: { valid: ValidCase[]; invalid: InvalidCase[] }): void {
  void describe(rule.meta.id, () => {
    for (const c of cases.valid) {
      void test(`valid: ${c.name}`, () => {
        const { findings } = run(c.input, { rules: [rule] });
        assert.deepEqual(
          findings.map((f) => `${f.line}: ${f.message}`),
          [],
        );
      });
    }
    for (const c of cases.invalid) {
      void test(`invalid: ${c.name}`, () => {
        const { findings } = run(c.input, { rules: [rule] });
        const actual = findings.map((f) => {
          const e: ExpectedError = { messageId: f.messageId ?? '?', line: f.line };
          return e;
        });
        assert.deepEqual(
          actual,
          c.errors.map((e) => ({ messageId: e.messageId, line: e.line })),
          findings.map((f) => `${f.line}: ${f.message}`).join('\n'),
        );
        c.errors.forEach((e, i) => {
          const f = findings[i]!;
          if (e.column !== undefined) {
            assert.equal(f.column, e.column, `column of finding ${i}`);
          }
          if (e.endColumn !== undefined) {
            assert.equal(f.endColumn, e.endColumn, `endColumn of finding ${i}`);
          }
          if (e.severity !== undefined) {
            assert.equal(f.severity, e.severity, `severity of finding ${i}`);
          }
          if (e.message !== undefined) {
            assert.match(f.message, e.message, `message of finding ${i}`);
          }
          assert.equal(f.rule, rule.meta.id);
          assert.ok(f.message.length > 20, 'a message a person can read');
          assert.ok(!/\{\{/.test(f.message), 'every placeholder filled: ' + f.message);
        });
      });
    }
  });
}

/** The 1-based column where `needle` starts in `line` (UTF-16). */
export function columnOf(line: string, needle: string): number {
  const at = line.indexOf(needle);
  if (at === -1) {
    throw new Error(`${needle} not in line`);
  }
  return at + 1;
}
