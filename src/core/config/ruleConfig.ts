import type { Severity } from '../model/finding';

export type RuleLevel = Severity | 'off';

/** Per-rule settings resolved from the user's configuration (or `check` flags). */
export interface RuleConfig {
  levels: Readonly<Record<string, RuleLevel>>;
  options: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export const emptyRuleConfig: RuleConfig = { levels: {}, options: {} };

/** A rule's level under `config`: the configured one, else the rule's default. */
export function ruleLevel(config: RuleConfig, rule: { readonly id: string; readonly defaultSeverity: Severity }): RuleLevel {
  return config.levels[rule.id] ?? rule.defaultSeverity;
}

const order: Severity[] = ['error', 'warning', 'info'];

/** The less severe of two severities. */
export function milder(a: Severity, b: Severity): Severity {
  return order[Math.max(order.indexOf(a), order.indexOf(b))]!;
}

/** One step less severe (info stays info). */
export function demote(s: Severity): Severity {
  return order[Math.min(order.indexOf(s) + 1, order.length - 1)]!;
}
