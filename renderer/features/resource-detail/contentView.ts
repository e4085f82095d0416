/**
 * How the console shows one part of a resource (or an embedded resource in a prompt's message):
 * chosen by its MIME type, never by what the text looks like. JSON pretty-printed when it parses;
 * other text (markdown, plain, anything textual) as text with hidden characters shown; a blob as
 * an image preview (PNG, JPEG, GIF, WebP: formats a browser shows without running anything) or
 * a download. Text over SHOW_MAX_CHARS is cut, with the cut said.
 */
export const SHOW_MAX_CHARS = 200_000;

export type ContentView =
  | { kind: 'json'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'image'; src: string; bytes: number }
  | { kind: 'binary'; bytes: number };

const PREVIEWED_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export const isJsonType = (mimeType: string | undefined) => mimeType !== undefined && /^application\/([\w.+-]+\+)?json\b/i.test(mimeType);

/** The number of bytes base64 text stands for. */
export const base64Bytes = (blob: string) => Math.floor((blob.replace(/=+$/, '').length * 3) / 4);

export function contentView(part: { mimeType?: string | undefined; text?: string | undefined; blob?: string | undefined }): ContentView {
  const mimeType = part.mimeType?.split(';')[0]?.trim().toLowerCase();
  if (part.text !== undefined) {
    if (isJsonType(mimeType)) {
      try {
        return { kind: 'json', text: JSON.stringify(JSON.parse(part.text), null, 2) };
      } catch {
        // Not JSON after all: shown as the text it is.
      }
    }
    return { kind: 'text', text: part.text };
  }
  const blob = part.blob ?? '';
  const bytes = base64Bytes(blob);
  if (mimeType && PREVIEWED_IMAGES.has(mimeType)) return { kind: 'image', src: `data:${mimeType};base64,${blob}`, bytes };
  return { kind: 'binary', bytes };
}

/** Text cut to what the console shows, and whether it was cut. */
export function shownText(text: string): { text: string; cut: boolean } {
  return text.length > SHOW_MAX_CHARS ? { text: text.slice(0, SHOW_MAX_CHARS), cut: true } : { text, cut: false };
}

export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
