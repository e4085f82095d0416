/**
 * What Capstan answers to a Harn script's search and skill requests, from the run's task:
 *
 * - `tool_search/query` `{ strategy, query, candidates: [names] }` (crates/harn-vm/src/llm/agent/
 *   tool_search_client.rs, the same in v0.7.50 and 0.10.x): the candidates the script may call,
 *   i.e. those among the names `host/tools/list` gives it, ranked with lexical-v1 over the task's
 *   snapshot index (the analyzer of `capabilities_search`), as `{ tool_names, diagnostic }`.
 *   Harn keeps the order and ignores names it did not ask about.
 * - `skill/match` `{ strategy, prompt, working_files, candidates: [{ name, description,
 *   when_to_use, paths }] }` (crates/harn-vm/src/llm/agent/skill_match.rs score_via_bridge): the
 *   script's own candidate skills ranked with lexical-v1 against the prompt, as `{ matches: [{
 *   name, score, reason }] }`. Harn sorts by score and activates the best.
 * - `skills/list` `{}` and `skills/fetch` `{ id }` (crates/harn-vm/src/bridge.rs list_host_skills,
 *   fetch_host_skill; docs/src/bridge-protocol.md "Skill registry"): the skills of the task's
 *   snapshot it holds `activate` on, model-discoverable, not revoked, of an enabled provider.
 *   A fetch re-checks all of that and the reference against the live catalog, and reads the body
 *   verified against the contract's manifest and body hashes, exactly as `skills_activate` does.
 *
 * None of these is recorded in the ledger, as discovery (capabilities_search, skills_activate)
 * records nothing there; each shows in the run's lines.
 */
import type { SkillContract } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import type { Catalog } from '../catalog/catalog';
import { LexicalIndex } from '../catalog/lexical';
import type { SnapshotEntry } from '../catalog/snapshot';
import type { RunningTask } from '../runtime/task';
import { hostToolNames } from './hostTools';

export const ANALYZER = 'lexical-v1';

export interface ToolSearchAnswer {
  tool_names: string[];
  diagnostic: string;
}

/** Ranks the candidates the script may call; names it cannot call are left out and counted. */
export function searchTools(catalog: Catalog, task: RunningTask, query: string, candidates: readonly string[]): ToolSearchAnswer {
  const listed = hostToolNames(catalog, task);
  // The snapshot index ranks by capability id; a hit is answered by the name the script knows.
  const byId = new Map<string, string>();
  const unknown: string[] = [];
  for (const name of new Set(candidates)) {
    const entry = listed.get(name);
    if (entry) byId.set(entry.contract.id, name);
    else unknown.push(name);
  }
  const { entries, index } = task.snapshot;
  const result = index.search(query, (doc) => byId.has(entries[doc]!.contract.id));
  const names: string[] = [];
  for (let rank = 0; rank < result.length; rank++) names.push(byId.get(entries[result.doc(rank)]!.contract.id)!);
  const left = unknown.length > 0 ? `; ${unknown.length} candidate${unknown.length === 1 ? ' is' : 's are'} not a tool this run may call (${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ', …' : ''})` : '';
  return { tool_names: names, diagnostic: `Capstan ${ANALYZER}: ${names.length} of ${byId.size} callable candidate${byId.size === 1 ? '' : 's'} matched${left}` };
}

export interface SkillCandidate {
  name: string;
  description: string;
  when_to_use: string;
  paths: string[];
}

/** The script's own candidate skills, ranked with lexical-v1 against the prompt; only matches are returned. */
export function matchSkills(prompt: string, candidates: readonly SkillCandidate[]): { matches: { name: string; score: number; reason: string }[] } {
  const byName = new Map<string, SkillCandidate>();
  for (const candidate of candidates) if (candidate.name !== '' && !byName.has(candidate.name)) byName.set(candidate.name, candidate);
  const index = new LexicalIndex(
    [...byName.values()].map((candidate) => ({
      id: candidate.name,
      name: candidate.name,
      kind: 'skill',
      provider: 'script',
      tags: [],
      description: [candidate.description, candidate.when_to_use].filter(Boolean).join('\n'),
    })),
  );
  const hits = index.search(prompt).slice();
  return {
    matches: hits.map((hit) => ({
      name: index.documents[hit.doc]!.name,
      score: hit.score,
      reason: `${ANALYZER}: the prompt matched its ${hit.matched.map((field) => (field === 'description' ? 'description or when_to_use' : field)).join(', ')}`,
    })),
  };
}

type SkillEntry = SnapshotEntry & { contract: SkillContract };

/** The skills a run may fetch: in its snapshot, held at `activate`, model-discoverable, available. */
export function grantedSkills(catalog: Catalog, task: RunningTask): SkillEntry[] {
  return task.snapshot.entries.filter(
    (entry): entry is SkillEntry =>
      entry.contract.kind === 'skill' &&
      entry.contract.modelDiscoverable &&
      task.grants.held(entry.contract.id, 'skill') === 'activate' &&
      catalog.isEnabled(entry.contract.provider) &&
      !catalog.isRevoked(entry.contract.id),
  );
}

/** `skills/list`: Harn's SkillManifestRef shape, `{ id, name, description, source }`. */
export function listSkills(catalog: Catalog, task: RunningTask): { skills: { id: string; name: string; description: string; source: string }[] } {
  return { skills: grantedSkills(catalog, task).map(({ contract }) => ({ id: contract.id, name: contract.name, description: contract.description, source: 'host' })) };
}

export interface FetchedSkill {
  id: string;
  name: string;
  description: string;
  body: string;
  manifest: { allowed_tools: string[]; argument_hint?: string };
  bodyHash: string;
}

/**
 * `skills/fetch { id }`: by capability id, else by name. Refused (CAPABILITY_NOT_FOUND,
 * NOT_GRANTED, STALE_CAPABILITY, revoked or disabled) unless the run may activate it and the
 * reference and the SKILL.md on disk still match what the task's snapshot holds.
 */
export async function fetchSkill(catalog: Catalog, task: RunningTask, id: string): Promise<FetchedSkill> {
  const held = task.snapshot.entries.find((entry) => entry.contract.kind === 'skill' && entry.contract.id === id) ?? task.snapshot.entries.find((entry) => entry.contract.kind === 'skill' && entry.contract.name === id);
  if (!held || !held.contract.modelDiscoverable) throw new CapstanError('CAPABILITY_NOT_FOUND', `no skill "${id.slice(0, 200)}" this run may fetch`);
  task.grants.require(held.contract.id, 'skill', 'activate');
  const live = catalog.verify(task.snapshot.reference(held), task.snapshot);
  if (live.contract.kind !== 'skill' || !live.skill) throw new CapstanError('CAPABILITY_NOT_FOUND', `${held.contract.id} is not a skill`);
  const body = await live.skill.readBody();
  if (body.manifestHash !== live.contract.manifestHash || body.bodyHash !== live.contract.bodyHash) {
    const part = body.manifestHash !== live.contract.manifestHash ? 'manifest' : 'body';
    throw new CapstanError('STALE_CAPABILITY', `${live.contract.id}: its SKILL.md ${part} changed since the run's snapshot`, { part: 'contractHash' });
  }
  const { contract } = live;
  return {
    id: contract.id,
    name: contract.name,
    description: contract.description,
    body: body.body,
    manifest: { allowed_tools: contract.allowedTools, ...(contract.argumentHint ? { argument_hint: contract.argumentHint } : {}) },
    bodyHash: contract.bodyHash,
  };
}
