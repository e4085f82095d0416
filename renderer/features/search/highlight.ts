/**
 * Where a search's terms appear in a field's text, for <mark>ing them. Text is split by the
 * lexical-v1 tokenizer itself (shared/lexical.ts), the one the gateway's index uses, so a term
 * is marked exactly where the index found it: matching a whole term or, from two characters on,
 * the start of one. Highlighting only shows why a hit matched; the gateway decides what matches.
 */
import { terms } from '../../../shared/lexical';

/** The query split as lexical-v1 splits it, each term once. */
export function queryTerms(query: string): string[] {
  return [...new Set(terms(query))];
}

/** Runs of letters and digits, with the combining marks that NFKC may fold into them. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const MIN_PREFIX_LENGTH = 2;

export type Range = readonly [start: number, end: number];

/** A lexical-v1 term of a text and the [start, end) of the text it comes from. */
export interface TermSpan {
  term: string;
  start: number;
  end: number;
  /** Whether `start + n` is the n-th character of the term (else the span is a whole word). */
  exact: boolean;
}

/**
 * The text's terms, in order, with where each lies. Each word is split by `terms()`; its terms
 * lie end to end in it when normalizing kept its length, which it does for all but a few
 * characters (ligatures, compatibility forms, decomposed accents): their terms span the whole word.
 */
export function termSpans(text: string): TermSpan[] {
  const spans: TermSpan[] = [];
  for (const word of text.matchAll(WORD)) {
    const parts = terms(word[0]);
    const exact = parts.join('').length === word[0].length;
    let at = word.index;
    for (const term of parts) {
      if (exact) spans.push({ term, start: at, end: (at += term.length), exact });
      else spans.push({ term, start: word.index, end: word.index + word[0].length, exact });
    }
  }
  return spans;
}

/** The [start, end) ranges of `text` that one of `terms` matches, sorted and merged. */
export function matchRanges(text: string, terms: readonly string[]): Range[] {
  if (terms.length === 0) return [];
  const ranges: [number, number][] = [];
  for (const span of termSpans(text)) {
    let longest = 0;
    for (const term of terms) {
      const hit = span.term === term || (term.length >= MIN_PREFIX_LENGTH && span.term.startsWith(term));
      if (hit && term.length > longest) longest = term.length;
    }
    if (longest > 0) ranges.push([span.start, span.exact ? span.start + longest : span.end]);
  }
  // Spans come in text order and never overlap, so the ranges are already sorted; join neighbours.
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push(range);
  }
  return merged;
}
