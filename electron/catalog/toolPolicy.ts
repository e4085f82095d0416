/**
 * config.json's `toolPolicy`: the operator tightening what Capstan decided for tools whose ids
 * match a pattern (an MCP server's annotations, or a builtin's own settings). A rule may raise
 * the risk, require confirmation or mark a tool mutating; it can never lower any of them, so the
 * order of rules does not matter. Patterns use the grants' linear-time matcher.
 */
import type { RiskLevel, ToolContract } from '../../shared/capability';
import type { ToolPolicyRule } from '../../shared/mcp';
import { globMatcher } from '../../shared/glob';

const RISK_ORDER: readonly RiskLevel[] = ['low', 'medium', 'high'];
export const higherRisk = (a: RiskLevel, b: RiskLevel): RiskLevel => (RISK_ORDER.indexOf(a) >= RISK_ORDER.indexOf(b) ? a : b);

export type ToolPolicy = (contract: ToolContract) => ToolContract;

export function toolPolicy(rules: readonly ToolPolicyRule[]): ToolPolicy {
  const compiled = rules.map((rule) => ({ rule, matches: globMatcher(rule.pattern) }));
  return (contract) => {
    let tightened = contract;
    const by: string[] = [];
    for (const { rule, matches } of compiled) {
      if (!matches(contract.id)) continue;
      const next = {
        ...tightened,
        riskLevel: rule.riskLevel ? higherRisk(tightened.riskLevel, rule.riskLevel) : tightened.riskLevel,
        needConfirm: tightened.needConfirm || rule.needConfirm === true,
        mutating: tightened.mutating || rule.mutating === true,
      };
      if (next.riskLevel === tightened.riskLevel && next.needConfirm === tightened.needConfirm && next.mutating === tightened.mutating) continue;
      tightened = next;
      by.push(rule.pattern);
    }
    // Tools from outside always say what tightened them (perhaps nothing); a builtin only when something did.
    if (by.length === 0) return contract;
    return { ...tightened, tightenedBy: [...(contract.tightenedBy ?? []), ...by] };
  };
}
