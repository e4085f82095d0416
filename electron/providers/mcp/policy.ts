/**
 * What Capstan decides from a tool's annotations. Annotations are hints from the server, so the
 * defaults are the MCP specification's conservative ones: a tool is read-only only when it says
 * so; one that is not is mutating and, unless it says `destructiveHint: false`, destructive
 * (high risk, confirmation required); one that does not say `openWorldHint: false` reaches the
 * open world (at least medium risk). config.json's toolPolicy may tighten this further, never loosen it.
 */
import type { RiskLevel, ToolAnnotations } from '../../../shared/capability';
import { higherRisk } from '../../catalog/toolPolicy';

export interface Decision {
  riskLevel: RiskLevel;
  needConfirm: boolean;
  mutating: boolean;
}

export function decideFromAnnotations(declared: ToolAnnotations | null): Decision {
  const readOnly = declared?.readOnlyHint === true;
  const destructive = !readOnly && declared?.destructiveHint !== false;
  const openWorld = declared?.openWorldHint !== false;
  const base: RiskLevel = destructive ? 'high' : 'low';
  return {
    riskLevel: openWorld ? higherRisk(base, 'medium') : base,
    needConfirm: destructive,
    mutating: !readOnly,
  };
}

/** The annotations as declared, only the fields the specification defines (so a server's extras do not reach the contract). */
export function declaredAnnotations(annotations: Record<string, unknown> | undefined): ToolAnnotations | null {
  if (!annotations) return null;
  const declared: ToolAnnotations = {};
  if (typeof annotations.title === 'string') declared.title = annotations.title;
  for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
    if (typeof annotations[hint] === 'boolean') declared[hint] = annotations[hint];
  }
  return declared;
}
