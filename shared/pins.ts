/**
 * Pinned contracts: what an MCP server's tool said when the operator took it, so that it cannot
 * change what it says or does unseen (a "rug pull", or instructions slipped into a description
 * for the model to read). A tool's pin is the SHA-256 of the canonical JSON of its whole
 * descriptor as the server sent it (name, title, description, schemas, annotations, icons,
 * `_meta`). A tool whose descriptor no longer matches its pin, or that appeared after the server
 * was added, is held: listed for the operator, hidden from tasks, refused with CONTRACT_CHANGED,
 * until the operator reviews and accepts it.
 */
import { z } from 'zod';

/**
 * `changed`: its descriptor differs from its pin; `new`: it appeared after its server was added;
 * `renamed`: a new name whose descriptor, but for the name, is a pin that disappeared.
 */
export const HoldKind = z.enum(['changed', 'new', 'renamed']);
export type HoldKind = z.infer<typeof HoldKind>;

/** A held capability, as the operator's views list it. */
export const PinHold = z.object({
  /** The capability id, `<server>:<tool>`. */
  id: z.string(),
  provider: z.string(),
  name: z.string(),
  kind: HoldKind,
  /** The pinned descriptor's hash (a renamed tool's: its old name's); null for a tool that is new. */
  pinnedHash: z.string().nullable(),
  /** For a rename: the name it was pinned under. */
  renamedFrom: z.string().optional(),
  currentHash: z.string(),
  /** The parts of the descriptor that differ from the pin (`description`, `inputSchema`…); every part for a new tool. */
  changed: z.array(z.string()),
  /** What the review should point out, in the current descriptor (hiddenCharacters, modelAddressedText). */
  findings: z.array(z.string()),
  since: z.string(),
});
export type PinHold = z.infer<typeof PinHold>;

/** A server that says something else of itself (serverInfo, instructions) than when it was pinned: flagged for review; its tools are held only for their own changes. */
export const ServerFlag = z.object({
  provider: z.string(),
  pinnedHash: z.string(),
  currentHash: z.string(),
  changed: z.array(z.string()),
  findings: z.array(z.string()),
  since: z.string(),
});
export type ServerFlag = z.infer<typeof ServerFlag>;

export const PinsView = z.object({ held: z.array(PinHold), servers: z.array(ServerFlag).default([]) });
export type PinsView = z.infer<typeof PinsView>;

export const PinIdInput = z.strictObject({ id: z.string().min(3).max(300) });
export type PinIdInput = z.infer<typeof PinIdInput>;

/** `hash`, the descriptor's as reviewed: an acceptance holds only for what the operator saw. */
export const PinAcceptInput = z.strictObject({ id: z.string().min(3).max(300), hash: z.string().regex(/^[0-9a-f]{64}$/).optional() });
export type PinAcceptInput = z.infer<typeof PinAcceptInput>;

export const PinDiff = z.object({
  hold: PinHold,
  /** The descriptor as pinned (null for a new tool) and as the server sends it now. */
  pinned: z.record(z.string(), z.unknown()).nullable(),
  current: z.record(z.string(), z.unknown()),
});
export type PinDiff = z.infer<typeof PinDiff>;

/** The top-level parts of two descriptors that differ. */
export function changedParts(pinned: Record<string, unknown> | null, current: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(pinned ?? {}), ...Object.keys(current)])].sort();
  return pinned === null ? keys : keys.filter((key) => JSON.stringify(pinned[key]) !== JSON.stringify(current[key]));
}

/**
 * Characters a person does not see but a model reads: Unicode tag characters (U+E0000-E007F,
 * which can spell out a hidden message), zero-width characters, bidi controls (which reorder
 * what is shown), other format controls, and the fillers that draw as nothing.
 */
// eslint-disable-next-line no-misleading-character-class -- the combining grapheme joiner is one of the characters looked for
const HIDDEN = /[\u{E0000}-\u{E007F}\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD\u180E\u034F\u115F\u1160\u3164\uFFA0]/gu;

/** Each hidden character, made visible as `⟦U+XXXX name⟧`, so a review shows what the model would read. */
export function revealHidden(text: string): string {
  return text.replace(HIDDEN, (character) => `⟦${codePoint(character)} ${hiddenName(character)}⟧`);
}

export function hiddenCharacters(text: string): string[] {
  return [...new Set([...text.matchAll(HIDDEN)].map(([character]) => `${codePoint(character)} ${hiddenName(character)}`))];
}

const codePoint = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

function hiddenName(character: string): string {
  const point = character.codePointAt(0)!;
  if (point >= 0xe0000 && point <= 0xe007f) return 'tag';
  if (point >= 0x202a && point <= 0x202e) return 'bidi control';
  if (point >= 0x2066 && point <= 0x2069) return 'bidi isolate';
  if (point === 0x200e || point === 0x200f) return 'bidi mark';
  if (point === 0xfeff) return 'zero-width no-break space';
  return 'zero-width or format control';
}

/**
 * Phrases that speak to a model rather than describe a tool: instructions to ignore or hide,
 * to call other tools, or tool-call syntax. A plain note for the review, never a verdict: a
 * description may say such things innocently.
 */
const MODEL_ADDRESSED: readonly [RegExp, string][] = [
  [/ignore (all |any )?(previous|prior|above|earlier) (instructions|messages|rules)/i, 'asks to ignore previous instructions'],
  [/(do not|don't|never) (tell|inform|mention|show|reveal)[^.]{0,40}(user|operator|human)/i, 'asks to keep something from the user'],
  [/<\/?(important|system|instructions?|secret)>/i, 'contains instruction tags'],
  [/\b(before|after|instead of) (using|calling) (this|any|the) tool\b/i, 'tells the model what to do around tool calls'],
  [/("name"\s*:\s*"[^"]+"\s*,\s*"arguments"\s*:|<tool_call>|<function_call>|\bcall the \w+ tool\b)/i, 'contains tool-call syntax'],
  [/\b(system prompt|you are now|act as)\b/i, 'addresses the model directly'],
];

export function modelAddressedText(text: string): string[] {
  return MODEL_ADDRESSED.filter(([pattern]) => pattern.test(text)).map(([, note]) => note);
}

/** What a review should point out in a descriptor: hidden characters and text addressed to a model, anywhere in it. */
export function descriptorFindings(descriptor: Record<string, unknown>): string[] {
  const text = JSON.stringify(descriptor);
  // JSON escapes control characters only; the hidden ones above pass through as themselves.
  return [...hiddenCharacters(text).map((found) => `hidden character ${found}`), ...modelAddressedText(text)];
}

/**
 * Letters from other scripts that look like ASCII ones (Cyrillic `а`, Greek `ο`, fullwidth
 * letters…): in a tool's name they make `lookup` and `lооkup` two tools that read the same.
 * Not every lookalike in Unicode, the common ones, which is what a review needs to point at.
 */
const LOOKALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  '\u0430': 'a', '\u0435': 'e', '\u043E': 'o', '\u0440': 'p', '\u0441': 'c', '\u0443': 'y', '\u0445': 'x', '\u0455': 's', '\u0456': 'i', '\u0458': 'j',
  '\u04BB': 'h', '\u0501': 'd', '\u051B': 'q', '\u051D': 'w', '\u0410': 'A', '\u0412': 'B', '\u0415': 'E', '\u041A': 'K', '\u041C': 'M', '\u041D': 'H',
  '\u041E': 'O', '\u0420': 'P', '\u0421': 'C', '\u0422': 'T', '\u0425': 'X', '\u0405': 'S', '\u0406': 'I', '\u0408': 'J',
  // Greek
  '\u03BF': 'o', '\u03B1': 'a', '\u03B9': 'i', '\u03BD': 'v', '\u03C1': 'p', '\u0391': 'A', '\u0392': 'B', '\u0395': 'E', '\u0396': 'Z', '\u0397': 'H',
  '\u0399': 'I', '\u039A': 'K', '\u039C': 'M', '\u039D': 'N', '\u039F': 'O', '\u03A1': 'P', '\u03A4': 'T', '\u03A5': 'Y', '\u03A7': 'X',
  // Latin lookalikes outside ASCII
  '\u0131': 'i', '\u0261': 'g', '\u026A': 'I', '\u1D00': 'A',
};

export interface Confusable {
  character: string;
  /** `U+0430`. */
  codePoint: string;
  /** The ASCII character it passes for. */
  looksLike: string;
}

/** The letters in `text` that are not ASCII but pass for ASCII ones (homoglyphs), each once, in order. */
export function confusables(text: string): Confusable[] {
  const seen = new Map<string, Confusable>();
  for (const character of text) {
    const looksLike = LOOKALIKES[character] ?? fullwidth(character);
    if (looksLike !== undefined && !seen.has(character)) seen.set(character, { character, codePoint: codePoint(character), looksLike });
  }
  return [...seen.values()];
}

/** Fullwidth ASCII (U+FF01-FF5E) passes for its ASCII counterpart. */
function fullwidth(character: string): string | undefined {
  const point = character.codePointAt(0)!;
  return point >= 0xff01 && point <= 0xff5e ? String.fromCodePoint(point - 0xfee0) : undefined;
}

/** Each homoglyph made visible as `⟦U+0430 looks like a⟧`, with the hidden characters as revealHidden shows them. */
export function revealConfusables(text: string): string {
  const marked = [...text].map((character) => {
    const looksLike = LOOKALIKES[character] ?? fullwidth(character);
    return looksLike === undefined ? character : `⟦${codePoint(character)} looks like ${looksLike}⟧`;
  });
  return revealHidden(marked.join(''));
}

/**
 * What tag characters spell, read as the ASCII they shadow (U+E0020-E007E stand for U+0020-007E):
 * the message a model would read and a person would not see. Each run of them, in order.
 */
export function hiddenTagText(text: string): string[] {
  return [...text.matchAll(/[\u{E0020}-\u{E007E}]+/gu)].map(([run]) => [...run].map((character) => String.fromCodePoint(character.codePointAt(0)! - 0xe0000)).join(''));
}
