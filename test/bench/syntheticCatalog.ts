/**
 * A realistic synthetic catalog for benchmarks: tool and skill names, tags and descriptions built
 * from an operator's vocabulary, spread over several providers, reproducible from a seed.
 */
import type { LexicalDocument } from '../../electron/catalog/lexical';

const VERBS = ['get', 'list', 'create', 'update', 'delete', 'search', 'check', 'restart', 'inspect', 'export', 'import', 'sync', 'scan', 'audit', 'archive', 'rotate', 'deploy', 'rollback', 'notify', 'summarize'];
const NOUNS = ['printer', 'ticket', 'invoice', 'user', 'badge', 'vpn', 'certificate', 'backup', 'volume', 'cluster', 'pipeline', 'release', 'incident', 'alert', 'dashboard', 'report', 'calendar', 'meeting', 'repository', 'issue', 'branch', 'container', 'queue', 'mailbox', 'license', 'asset', 'switch', 'firewall', 'dns', 'token'];
const QUALIFIERS = ['status', 'history', 'owner', 'config', 'metrics', 'logs', 'summary', 'details', 'quota', 'policy', 'schedule', 'health'];
const PROVIDERS = ['builtin', 'skills', 'github', 'jira', 'pagerduty', 'netbox', 'okta', 'hostbridge'];
const FILLER = ['for', 'the', 'current', 'selected', 'team', 'with', 'optional', 'filters', 'and', 'returns', 'a', 'short', 'structured', 'result', 'on', 'floor', 'site', 'region'];

function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export function syntheticCatalog(count: number, seed = 42): LexicalDocument[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const docs: LexicalDocument[] = [];
  const seen = new Set<string>();
  for (let i = 0; docs.length < count; i++) {
    const provider = pick(PROVIDERS);
    const kind = provider === 'skills' ? 'skill' : 'tool';
    const name = kind === 'skill' ? `${pick(NOUNS)}-${pick(VERBS)}-${pick(QUALIFIERS)}-${i}` : `${pick(VERBS)}_${pick(NOUNS)}_${pick(QUALIFIERS)}${i % 7 === 0 ? '' : `_${i}`}`;
    const id = `${provider}:${name}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const words = Array.from({ length: 12 + Math.floor(next() * 10) }, () => (next() < 0.35 ? pick(NOUNS) : next() < 0.5 ? pick(VERBS) : pick(FILLER)));
    docs.push({ id, name, kind, provider, tags: Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(NOUNS)), description: `${words.join(' ')}.` });
  }
  return docs;
}

/** Queries an operator types: one to three words, some partial, some matching nothing. */
export function syntheticQueries(count: number, seed = 7): string[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  return Array.from({ length: count }, (_, i) => {
    if (i % 10 === 9) return `zzz${i}`;
    if (i % 5 === 4) return pick(NOUNS).slice(0, 3);
    const words = [pick(VERBS), pick(NOUNS), pick(QUALIFIERS)].slice(0, 1 + Math.floor(next() * 3));
    return words.join(' ');
  });
}
