/**
 * The lexical-v1 tokenizer: how capability search normalizes text and splits it into terms.
 * It lives here, once, because two sides must agree on it: the catalog's search index
 * (electron/catalog/lexical.ts) decides what matches, and the console's highlighter
 * (renderer/features/search/highlight.ts) marks where it matched.
 */

/** Unicode-normalizes (NFKC) and case-folds. */
export function normalize(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** Splits into terms at whitespace, `_`, `-`, `.`, any other punctuation, and camelCase humps. */
export function terms(text: string): string[] {
  const humps = text.normalize('NFKC').replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2').replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  return normalize(humps).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}
