/**
 * The header's figures, computed from whatever the gateway returned. The tool figures are the
 * foundation's (8 / 7 / 1 by default: tools, no confirmation, need confirmation; usable tools
 * only, so skills and revoked tools are counted apart), and beside "no confirmation" sits how
 * many of those this console runs with one click: the tools the whitelist unlocks (2 by
 * default). The three states read off them: executable = one-click here, read-only = no
 * confirmation but not unlocked, locked = need confirmation. The whitelist is the gateway's
 * saved settings, which a save in Settings replaces in the page's cache, so these change at once.
 */
import { useState } from 'react';
import { registryCounts, toolState } from '../../../shared/policy';
import { isToolEntry, type RegistryEntry } from './useRegistry';

interface Figure {
  key: string;
  label: string;
  value: number | string;
  /** What the figure counts, for a pointer's tooltip; the label alone says it in brief. */
  hint?: string;
}

interface RegistryCountsProps {
  entries: readonly RegistryEntry[];
  whitelist: readonly string[];
  generation: number | undefined;
}

export function RegistryCounts({ entries, whitelist, generation }: RegistryCountsProps) {
  const restartedFrom = useRestartedFrom(generation);
  const usable = entries.filter(isToolEntry).filter((entry) => !entry.revoked);
  const counts = registryCounts(usable.map((entry) => entry.contract));
  // By the whitelist, not by the shown state: a whitelisted tool of a disconnected server is still one-click here, so
  // "no confirmation" stays "one-click here" plus the view-only ones.
  const unlocked = usable.filter((entry) => toolState(entry.contract, whitelist) === 'executable').length;
  const skills = entries.filter((entry) => entry.contract.kind === 'skill').length;
  // An MCP server's resources (templates with them) and prompts: figures of their own, shown once there are some.
  const resources = entries.filter((entry) => entry.contract.kind === 'resource' || entry.contract.kind === 'resourceTemplate').length;
  const prompts = entries.filter((entry) => entry.contract.kind === 'prompt').length;
  const revoked = entries.filter((entry) => entry.revoked).length;
  // Tools of a server that is not connected still count above (they are in the catalog); this says how many cannot run now.
  const unavailable = entries.filter((entry) => entry.state === 'unavailable').length;
  // Listed, counted above, but never runnable through Capstan (its contract says why).
  const notRunnable = entries.filter((entry) => entry.state === 'not-runnable').length;
  const figures: Figure[] = [
    { key: 'total', label: 'Tools', value: counts.total },
    { key: 'direct', label: 'No confirmation', value: counts.direct, hint: 'Tools the gateway runs without asking for a confirmation' },
    {
      key: 'unlocked',
      label: 'one-click here',
      value: unlocked,
      hint: 'Of the tools that need no confirmation, this console’s one-click tools: Execute runs them. The others are view only here (Settings → One-click tools changes the list).',
    },
    { key: 'confirm', label: 'Need confirmation', value: counts.needConfirm, hint: 'Locked here: each call runs only after you review and confirm it' },
    { key: 'skills', label: 'Skills', value: skills },
    ...(resources > 0 ? [{ key: 'resources', label: 'Resources', value: resources, hint: "MCP servers' resources and resource templates: read from their detail" }] : []),
    ...(prompts > 0 ? [{ key: 'prompts', label: 'Prompts', value: prompts, hint: "MCP servers' prompts: got with arguments from their detail" }] : []),
    ...(revoked > 0 ? [{ key: 'revoked', label: 'Revoked', value: revoked }] : []),
    ...(unavailable > 0 ? [{ key: 'unavailable', label: 'Unavailable', value: unavailable }] : []),
    ...(notRunnable > 0
      ? [{ key: 'not-runnable', label: 'Not runnable', value: notRunnable, hint: 'Tools Capstan lists but cannot run (e.g. MCP tools their server runs only as tasks)' }]
      : []),
    {
      key: 'generation',
      label: 'Generation',
      value: generation ?? '—',
      hint:
        restartedFrom !== undefined
          ? `Catalog generation: went back from ${restartedFrom} because the gateway restarted (generations start again with each start); it grows on every change to the catalog`
          : 'Catalog generation: grows on every change to the catalog, and starts again when the gateway restarts',
    },
  ];
  return (
    <dl className="counts" aria-label="Registry summary">
      {figures.map((figure) => (
        // "one-click here" is a part of "no confirmation": the stylesheet joins the two into one pill.
        <div key={figure.key} className={`counts__item counts__item--${figure.key}`} title={figure.hint}>
          <dt>{figure.label}</dt>
          <dd data-count={figure.key}>{figure.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The generation the counter went back from, once it did: a generation only grows within one
 * gateway process, so going back means the gateway restarted, which the hint then says.
 */
function useRestartedFrom(generation: number | undefined): number | undefined {
  const [seen, setSeen] = useState<{ last: number | undefined; wentBackFrom: number | undefined }>({ last: generation, wentBackFrom: undefined });
  if (generation !== seen.last) {
    const wentBackFrom = generation !== undefined && seen.last !== undefined && generation < seen.last ? seen.last : seen.wentBackFrom;
    setSeen({ last: generation, wentBackFrom });
  }
  return seen.wentBackFrom;
}
