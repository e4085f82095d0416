/** How the console chooses a viewer for a resource's part (renderer/features/resource-detail/contentView.ts). */
import { describe, expect, it } from 'vitest';
import { base64Bytes, byteSize, contentView, shownText, SHOW_MAX_CHARS } from '../../renderer/features/resource-detail/contentView';

describe('a resource part in the console', () => {
  it('is chosen by its MIME type: JSON pretty-printed when it parses, other text as text', () => {
    expect(contentView({ mimeType: 'application/json', text: '{"a":[1,2]}' })).toEqual({ kind: 'json', text: '{\n  "a": [\n    1,\n    2\n  ]\n}' });
    expect(contentView({ mimeType: 'application/ld+json; charset=utf-8', text: '{}' })).toEqual({ kind: 'json', text: '{}' });
    // Declared JSON that is not: shown as the text it is.
    expect(contentView({ mimeType: 'application/json', text: 'not json' })).toEqual({ kind: 'text', text: 'not json' });
    // Text that looks like JSON is not pretty-printed unless its type says JSON.
    expect(contentView({ mimeType: 'text/markdown', text: '{"a":1}' })).toEqual({ kind: 'text', text: '{"a":1}' });
    expect(contentView({ text: 'plain' })).toEqual({ kind: 'text', text: 'plain' });
  });

  it('shows a blob as an image only for the formats a browser shows without running anything; else offers it', () => {
    expect(contentView({ mimeType: 'image/png', blob: 'AAAA' })).toEqual({ kind: 'image', src: 'data:image/png;base64,AAAA', bytes: 3 });
    // SVG can carry script: never previewed.
    expect(contentView({ mimeType: 'image/svg+xml', blob: 'AAAA' })).toEqual({ kind: 'binary', bytes: 3 });
    expect(contentView({ mimeType: 'text/plain', blob: 'aGVsbG8=' })).toEqual({ kind: 'binary', bytes: 5 });
    expect(base64Bytes('aGk=')).toBe(2);
  });

  it('cuts long text, saying so, and sizes bytes in words', () => {
    const long = 'x'.repeat(SHOW_MAX_CHARS + 1);
    expect(shownText(long)).toEqual({ text: 'x'.repeat(SHOW_MAX_CHARS), cut: true });
    expect(shownText('short')).toEqual({ text: 'short', cut: false });
    expect(byteSize(12)).toBe('12 bytes');
    expect(byteSize(2048)).toBe('2.0 KiB');
    expect(byteSize(3 * 1024 * 1024)).toBe('3.0 MiB');
  });
});
