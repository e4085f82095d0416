/**
 * A task's authority ceiling per capability. Grants come from configuration as patterns; during
 * a task they can only be reduced, never raised.
 */
import { globMatcher } from '../../shared/glob';
import { PROMPT_AUTHORITY, RESOURCE_AUTHORITY, SKILL_AUTHORITY, TOOL_AUTHORITY, type Authority, type CapabilityKind, type Grant } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';

/**
 * Rank on one scale: a skill's `activate`, a resource's `read` and a prompt's `get` sit where a
 * tool's `load` does (each the top of a four-rung ladder), so `execute` granted to a resource is `read`.
 */
const RANK: Record<Authority, number> = { none: 0, discover: 1, inspect: 2, load: 3, activate: 3, read: 3, get: 3, execute: 4 };

const LADDERS: Record<CapabilityKind, readonly Authority[]> = {
  tool: TOOL_AUTHORITY,
  skill: SKILL_AUTHORITY,
  resource: RESOURCE_AUTHORITY,
  resourceTemplate: RESOURCE_AUTHORITY,
  prompt: PROMPT_AUTHORITY,
};

/** The authority a rank means for a kind of capability (`execute` granted to a skill is `activate`, to a resource `read`). */
export function authorityFor(kind: CapabilityKind, authority: Authority): Authority {
  const ladder = LADDERS[kind];
  return ladder[Math.min(RANK[authority], ladder.length - 1)]!;
}

export const outranks = (a: Authority, b: Authority) => RANK[a] > RANK[b];

interface Rule {
  pattern: string;
  authority: Authority;
  /** Only capabilities of this kind; undefined: every kind. */
  kind: CapabilityKind | undefined;
  matches: (id: string) => boolean;
  /** More literal characters: more specific. */
  specificity: number;
}

const rule = ({ pattern, authority, kind }: Grant): Rule => ({
  pattern,
  authority,
  kind,
  matches: globMatcher(pattern),
  specificity: pattern.replaceAll('*', '').length,
});

export class Grants {
  readonly #rules: readonly Rule[];
  readonly #reductions: Rule[] = [];

  constructor(grants: readonly Grant[]) {
    this.#rules = grants.map(rule);
  }

  /**
   * The authority held on a capability: the most specific configured pattern (the lower one on
   * a tie), capped by every reduction made since, and by what the kind can hold at all.
   */
  held(id: string, kind: CapabilityKind): Authority {
    let best: Rule | undefined;
    for (const candidate of this.#rules) {
      if ((candidate.kind !== undefined && candidate.kind !== kind) || !candidate.matches(id)) continue;
      if (!best || candidate.specificity > best.specificity || (candidate.specificity === best.specificity && outranks(best.authority, candidate.authority))) {
        best = candidate;
      }
    }
    let held: Authority = best?.authority ?? 'none';
    for (const reduction of this.#reductions) {
      if ((reduction.kind === undefined || reduction.kind === kind) && reduction.matches(id) && outranks(held, reduction.authority)) held = reduction.authority;
    }
    return authorityFor(kind, held);
  }

  /** Throws NOT_GRANTED unless the held authority reaches the needed one. */
  require(id: string, kind: CapabilityKind, needed: Authority): void {
    const held = this.held(id, kind);
    if (RANK[held] < RANK[needed]) {
      throw new CapstanError('NOT_GRANTED', `${id} needs "${needed}", the task holds "${held}"`, { held, needed });
    }
  }

  /** Throws AUTHORITY_CEILING when the grant would raise what the pattern holds now: grants never grow during a task. */
  assertReducible(grant: Grant): void {
    const current = this.held(grant.pattern, grant.kind ?? 'tool');
    if (outranks(grant.authority, current)) {
      throw new CapstanError(
        'AUTHORITY_CEILING',
        `"${grant.pattern}" holds "${current}"; a grant can be reduced during a task, never raised to "${grant.authority}"`,
        { held: current, requested: grant.authority },
      );
    }
  }

  /** Lowers the ceiling for every capability matching the pattern (see `assertReducible`). */
  reduce(grant: Grant): Grant {
    this.assertReducible(grant);
    this.#reductions.push(rule(grant));
    return grant;
  }

  get reductions(): readonly Grant[] {
    return this.#reductions.map(({ pattern, authority, kind }) => ({ pattern, authority, ...(kind ? { kind } : {}) }));
  }
}
