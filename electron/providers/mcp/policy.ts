/**
 * What Capstan decides from a tool's annotations. Annotations are hints from the server, so the
 * defaults are the MCP specification's conservative ones: a tool is read-only only when it says
 * so (and does not also say it is destructive); one that is not is mutating and, unless it says
 * `destructiveHint: false`, destructive
 * (high risk, confirmation required); one that does not say `openWorldHint: false` reaches the
 * open world (at least medium risk). config.json's toolPolicy may tighten this further, never loosen it.
 */
import type { RiskLevel, ToolAnnotations, ToolIcon } from '../../../shared/capability';
import { higherRisk } from '../../catalog/toolPolicy';

export interface Decision {
  riskLevel: RiskLevel;
  needConfirm: boolean;
  mutating: boolean;
}

export function decideFromAnnotations(declared: ToolAnnotations | null): Decision {
  // Hints that contradict each other (read-only and destructive) take the conservative reading,
  // as absent ones do: destructive.
  const readOnly = declared?.readOnlyHint === true && declared?.destructiveHint !== true;
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

/** The icons as declared, only the fields MCP's Icon defines and only those with a `src` (empty: none). */
export function declaredIcons(icons: unknown): ToolIcon[] {
  if (!Array.isArray(icons)) return [];
  return icons.flatMap((icon: Record<string, unknown> | null) => {
    if (typeof icon?.src !== 'string' || !icon.src) return [];
    const kept: ToolIcon = { src: icon.src };
    if (typeof icon.mimeType === 'string') kept.mimeType = icon.mimeType;
    if (Array.isArray(icon.sizes) && icon.sizes.every((size) => typeof size === 'string')) kept.sizes = icon.sizes as string[];
    if (icon.theme === 'light' || icon.theme === 'dark') kept.theme = icon.theme;
    return [kept];
  });
}

/**
 * Why Capstan cannot run a tool, or undefined when it can. Tools whose server runs them as MCP
 * tasks (`execution.taskSupport: "required"` or `"optional"`) are called as tasks (mcpTasks.ts);
 * a `taskSupport` Capstan does not know is a way of running it cannot promise to follow.
 */
export function notRunnableReason(execution: { taskSupport?: string } | undefined): string | undefined {
  const support = execution?.taskSupport;
  if (support === undefined || support === 'forbidden' || support === 'optional' || support === 'required') return undefined;
  return `its server declares execution.taskSupport: "${String(support).slice(0, 40)}", which Capstan does not know how to run`;
}
