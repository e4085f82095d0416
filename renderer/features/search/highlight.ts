/**
 * Where a search's terms appear in a field's text, for <mark>ing them. It follows lexical-v1
 * (electron/catalog/lexical.ts): the same splitting into terms (punctuation, `_`, `-`, `.`,
 * camelCase humps), case-folded, a term matching a whole word or, from two characters on, the
 * start of one. Highlighting only shows why a hit matched; the gateway decides what matches.
 */

/** The query split as lexical-v1 splits it. */
export function queryTerms(query: string): string[] {
  const humps = query.normalize('NFKC').replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2').replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  return [...new Set(humps.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean))];
}

/** Runs of letters and digits, then camelCase humps inside them ("HTTPCheck" → HTTP, Check). */
const WORD = /[\p{L}\p{N}]+/gu;
const HUMP = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?[^\p{Lu}]+|\p{Lu}+/gu;
const MIN_PREFIX_LENGTH = 2;

export type Range = readonly [start: number, end: number];

/** The [start, end) ranges of `text` that one of `terms` matches, sorted and merged. */
export function matchRanges(text: string, terms: readonly string[]): Range[] {
  if (terms.length === 0) return [];
  const ranges: [number, number][] = [];
  for (const word of text.matchAll(WORD)) {
    for (const hump of word[0].matchAll(HUMP)) {
      const segment = hump[0].toLowerCase();
      const start = word.index + hump.index;
      let longest = 0;
      for (const term of terms) {
        const hit = segment === term || (term.length >= MIN_PREFIX_LENGTH && segment.startsWith(term));
        if (hit && term.length > longest) longest = term.length;
      }
      if (longest > 0) ranges.push([start, start + longest]);
    }
  }
  // Humps come in text order and never overlap, so the ranges are already sorted; join neighbours.
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push(range);
  }
  return merged;
}
