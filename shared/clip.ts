/**
 * Text cut to at most `max` UTF-16 code units without splitting a surrogate pair, and made
 * well-formed (a lone surrogate becomes U+FFFD): a plain `slice` can cut an emoji in half, and a
 * lone surrogate cannot be hashed into the ledger (canonical JSON refuses it) or returned as a
 * tool's result.
 */
export function clip(text: string, max: number): string {
  const end = text.length > max && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end).toWellFormed();
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
