/**
 * The Policy section's draft of one MCP server's policy, and what it offers. It only tightens:
 * a tool's override offers only what is above what its annotations decide (their conservative
 * reading), and the server's toolPolicy rules are written back as the gateway reads them.
 */
import type { RiskLevel } from '../../../shared/capability';
import type { McpServerView, PolicyTightening, ServerPolicy, ToolDecisionView } from '../../../shared/mcp';

export const RISK_LEVELS: readonly RiskLevel[] = ['low', 'medium', 'high'];

export interface PolicyDraft {
  confirmAll: boolean;
  /** `low`: no floor. */
  riskAtLeast: RiskLevel;
  acceptNewTools: boolean;
  /** The default rule's `mutating`, kept as config.json has it (the section does not set it). */
  mutatingAll: boolean;
  tools: Record<string, PolicyTightening>;
}

export function draftFromPolicy(policy: ServerPolicy | undefined): PolicyDraft {
  return {
    confirmAll: policy?.defaults.needConfirm === true,
    riskAtLeast: policy?.defaults.riskLevel ?? 'low',
    acceptNewTools: policy?.acceptNewTools === true,
    mutatingAll: policy?.defaults.mutating === true,
    tools: { ...policy?.tools },
  };
}

/** The risk floors a tool may be given: only those above what its annotations (and the server's floor) already make it. */
export function riskOptions(decided: RiskLevel, serverFloor: RiskLevel): RiskLevel[] {
  const from = Math.max(RISK_LEVELS.indexOf(decided), RISK_LEVELS.indexOf(serverFloor));
  return RISK_LEVELS.slice(from + 1);
}

export const higher = (a: RiskLevel, b: RiskLevel): RiskLevel => (RISK_LEVELS.indexOf(a) >= RISK_LEVELS.indexOf(b) ? a : b);

/** What the draft would make of a tool, from its annotations up (the catalog shows what is in effect now). */
export function drafted(tool: ToolDecisionView, draft: PolicyDraft) {
  const own = draft.tools[tool.name] ?? {};
  return {
    riskLevel: higher(higher(tool.decided.riskLevel, draft.riskAtLeast), own.riskLevel ?? 'low'),
    needConfirm: tool.decided.needConfirm || draft.confirmAll || own.needConfirm === true,
    mutating: tool.decided.mutating || draft.mutatingAll || own.mutating === true,
  };
}

/** The request: only the overrides that still tighten something, none below the annotations. */
export function policyInput(name: string, draft: PolicyDraft, decisions: readonly ToolDecisionView[]) {
  const decided = new Map(decisions.map((tool) => [tool.name, tool.decided]));
  const tools: Record<string, PolicyTightening> = {};
  for (const [tool, rule] of Object.entries(draft.tools)) {
    const base = decided.get(tool);
    const riskLevel = rule.riskLevel && (!base || RISK_LEVELS.indexOf(rule.riskLevel) > RISK_LEVELS.indexOf(base.riskLevel)) ? rule.riskLevel : undefined;
    const kept: PolicyTightening = {
      ...(riskLevel ? { riskLevel } : {}),
      ...(rule.needConfirm && !base?.needConfirm ? { needConfirm: true as const } : {}),
      ...(rule.mutating && !base?.mutating ? { mutating: true as const } : {}),
    };
    if (Object.keys(kept).length > 0) tools[tool] = kept;
  }
  return {
    name,
    defaults: {
      ...(draft.confirmAll ? { needConfirm: true as const } : {}),
      ...(draft.riskAtLeast !== 'low' ? { riskLevel: draft.riskAtLeast } : {}),
      ...(draft.mutatingAll ? { mutating: true as const } : {}),
    },
    tools,
    acceptNewTools: draft.acceptNewTools,
  };
}

/** The annotations as words: what the server said, or that it said nothing (read as the most careful). */
export function declaredWords(declared: ToolDecisionView['declared']): string {
  if (!declared) return 'none declared';
  const words: string[] = [];
  if (declared.readOnlyHint !== undefined) words.push(declared.readOnlyHint ? 'read-only' : 'writes');
  if (declared.destructiveHint !== undefined) words.push(declared.destructiveHint ? 'destructive' : 'not destructive');
  if (declared.idempotentHint !== undefined) words.push(declared.idempotentHint ? 'idempotent' : 'not idempotent');
  if (declared.openWorldHint !== undefined) words.push(declared.openWorldHint ? 'open world' : 'closed world');
  return words.length > 0 ? words.join(', ') : 'no hints';
}

export const decisionsOf = (server: McpServerView): ToolDecisionView[] => [...(server.toolDecisions ?? [])].sort((a, b) => a.name.localeCompare(b.name));
