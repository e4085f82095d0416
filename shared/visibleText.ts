/**
 * Untrusted text (a skill file, a diagnostic's excerpt) made safe to show: what a text viewer or
 * a terminal would act on rather than show is replaced by a visible stand-in, so a hostile file
 * cannot rearrange (bidirectional overrides), hide (zero-width characters) or drive (escape
 * sequences) what the operator reads.
 */

/**
 * C0 controls but tab, DEL, C1 controls, and the format characters that hide or reorder text:
 * soft hyphen, combining grapheme joiner, Arabic letter mark, Mongolian vowel separator, zero-width
 * and bidirectional marks and overrides, line and paragraph separators, invisible operators, BOM,
 * interlinear annotation marks, tag characters, and the Hangul fillers that draw as nothing (a
 * name made of them looks empty).
 */
// eslint-disable-next-line no-control-regex, no-misleading-character-class -- finding control and combining characters is the point
const EVERY = /[\u0000-\u0008\u000A-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2069\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{E0000}-\u{E007F}]/gu;
// eslint-disable-next-line no-control-regex, no-misleading-character-class -- as above
export const WITHOUT_NEWLINE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2069\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{E0000}-\u{E007F}]/gu;

/**
 * Replaces what a text viewer would act on with what shows it: C0 controls but tab as their
 * Control Pictures (␛ for ESC), DEL as ␡, C1 controls and bidirectional and invisible format
 * characters as `\u{…}`. Tabs (and, when asked, newlines) and the text's own letters stay.
 */
export function visibleText(text: string, { keepNewlines = false } = {}): string {
  return text.replace(keepNewlines ? WITHOUT_NEWLINE : EVERY, (char) => {
    const code = char.codePointAt(0)!;
    if (code < 0x20) return String.fromCodePoint(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return `\\u{${code.toString(16).toUpperCase()}}`;
  });
}
