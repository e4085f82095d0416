/**
 * The console's client policy. It only ever tightens what the gateway allows: the gateway
 * still checks every call, whatever state the console shows.
 */
import type { ToolDescriptor } from './api';

export type ToolState = 'executable' | 'read-only' | 'locked';

export function toolState(tool: Pick<ToolDescriptor, 'name' | 'needConfirm'>, whitelist: readonly string[]): ToolState {
  if (tool.needConfirm) return 'locked';
  return whitelist.includes(tool.name) ? 'executable' : 'read-only';
}

export interface RegistryCounts {
  total: number;
  /** Tools that need no confirmation (the seed's "directly executable"). */
  direct: number;
  needConfirm: number;
}

export function registryCounts(tools: readonly Pick<ToolDescriptor, 'needConfirm'>[]): RegistryCounts {
  const needConfirm = tools.filter((tool) => tool.needConfirm).length;
  return { total: tools.length, direct: tools.length - needConfirm, needConfirm };
}

export type ToolFilter = 'all' | 'low-risk' | 'confirm';

export function matchesFilter(tool: Pick<ToolDescriptor, 'riskLevel' | 'needConfirm'>, filter: ToolFilter): boolean {
  if (filter === 'low-risk') return tool.riskLevel === 'low';
  if (filter === 'confirm') return tool.needConfirm;
  return true;
}

/** The prefix the console gives the requestIds it generates, so its calls stand out in logs. */
export const CONSOLE_REQUEST_PREFIX = 'tool-registry-';
