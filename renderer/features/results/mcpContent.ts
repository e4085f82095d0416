/**
 * Reads an MCP tool result (`{ content: [...], structuredContent?, isError? }`) into the blocks
 * the console draws. Whatever the server sent is untrusted: every block is checked for the
 * fields it needs, images become `data:` URLs only for image types with clean base64 (the CSP
 * allows `img-src data:`; an <img> never runs script), and anything unrecognised is kept as
 * JSON rather than dropped. Audio is described, not played: the CSP has no media-src.
 */

export type ContentBlock =
  | { kind: 'text'; text: string }
  | { kind: 'image'; src: string; mimeType: string; bytes: number }
  | { kind: 'binary'; what: 'image' | 'audio' | 'blob'; mimeType: string; bytes: number; note?: string }
  | { kind: 'resource-link'; uri: string; name: string; title: string | null; description: string | null; mimeType: string | null }
  | { kind: 'resource-text'; uri: string; mimeType: string | null; text: string }
  | { kind: 'unknown'; value: unknown };

export interface McpResult {
  blocks: ContentBlock[];
  /** Present (possibly null) only when the server sent `structuredContent`. */
  structured: { value: unknown } | null;
  isError: boolean;
}

/** Raster and vector formats every Chromium shows in an <img>. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'image/svg+xml', 'image/x-icon']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The decoded size of base64 text, without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** Base64 an image may be shown from: the alphabet only (whitespace removed), in whole quads. */
function cleanBase64(data: string): string | null {
  const compact = data.replace(/\s+/g, '');
  return compact.length % 4 === 0 && BASE64.test(compact) ? compact : null;
}

/** A `data:` URL for an image the console may show, or a reason it will not. */
export function imageSource(data: string, mimeType: string): { src: string } | { note: string } {
  const type = mimeType.toLowerCase().split(';')[0]?.trim() ?? '';
  if (!IMAGE_TYPES.has(type)) return { note: `not shown: ${mimeType || 'no type'} is not an image type the console displays` };
  const base64 = cleanBase64(data);
  if (base64 === null) return { note: 'not shown: the data is not valid base64' };
  return { src: `data:${type};base64,${base64}` };
}

function binaryBlock(what: 'image' | 'audio' | 'blob', data: string, mimeType: string): ContentBlock {
  if (what !== 'audio') {
    const image = imageSource(data, mimeType);
    if ('src' in image) return { kind: 'image', src: image.src, mimeType, bytes: base64Bytes(data) };
    if (what === 'image') return { kind: 'binary', what, mimeType, bytes: base64Bytes(data), note: image.note };
  }
  return { kind: 'binary', what, mimeType, bytes: base64Bytes(data) };
}

function readBlock(block: unknown): ContentBlock {
  if (!isObject(block)) return { kind: 'unknown', value: block };
  const type = block.type;
  if (type === 'text' && str(block.text) !== null) return { kind: 'text', text: block.text as string };
  if ((type === 'image' || type === 'audio') && str(block.data) !== null) return binaryBlock(type, block.data as string, str(block.mimeType) ?? '');
  if (type === 'resource_link' && str(block.uri) !== null) {
    return {
      kind: 'resource-link',
      uri: block.uri as string,
      name: str(block.name) ?? (block.uri as string),
      title: str(block.title),
      description: str(block.description),
      mimeType: str(block.mimeType),
    };
  }
  if (type === 'resource' && isObject(block.resource) && str(block.resource.uri) !== null) {
    const { resource } = block;
    const uri = resource.uri as string;
    const mimeType = str(resource.mimeType);
    if (str(resource.text) !== null) return { kind: 'resource-text', uri, mimeType, text: resource.text as string };
    if (str(resource.blob) !== null) {
      const shown = binaryBlock('blob', resource.blob as string, mimeType ?? '');
      return shown.kind === 'binary' ? { ...shown, note: uri } : shown;
    }
  }
  return { kind: 'unknown', value: block };
}

/** The result as MCP content, or null when it is not an MCP result (a builtin tool's plain JSON). */
export function readMcpResult(value: unknown): McpResult | null {
  if (!isObject(value) || !Array.isArray(value.content)) return null;
  return {
    blocks: value.content.map(readBlock),
    structured: 'structuredContent' in value ? { value: value.structuredContent } : null,
    isError: value.isError === true,
  };
}

/**
 * The content a failure carries, as blocks: TOOL_ERROR's `result` (the server's `isError`
 * answer, as it sent it); null when the failure carries none.
 */
export function readErrorContent(error: unknown): McpResult | null {
  if (!isObject(error)) return null;
  const result = readMcpResult(error.result);
  return result && { ...result, isError: true };
}
