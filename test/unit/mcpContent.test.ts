/** The console reads MCP results into blocks it can draw safely (renderer/features/results/mcpContent.ts). */
import { describe, expect, it } from 'vitest';
import { base64Bytes, imageSource, readErrorContent, readMcpResult } from '../../renderer/features/results/mcpContent';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('readMcpResult', () => {
  it('is null for a result that is not MCP content (a builtin tool answer)', () => {
    expect(readMcpResult({ iso: '2026-01-01T00:00:00Z' })).toBeNull();
    expect(readMcpResult(null)).toBeNull();
    expect(readMcpResult({ content: 'text' })).toBeNull();
  });

  it('keeps text, images, resource links and embedded resources in order', () => {
    const result = readMcpResult({
      content: [
        { type: 'text', text: 'Echo: hi' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource_link', uri: 'demo://resource/static/document/1', name: 'Blob Resource 1', mimeType: 'application/octet-stream' },
        { type: 'resource', resource: { uri: 'demo://text/2', mimeType: 'text/plain', text: 'hello' } },
      ],
    });
    expect(result?.blocks.map((block) => block.kind)).toEqual(['text', 'image', 'resource-link', 'resource-text']);
    expect(result?.blocks[1]).toMatchObject({ kind: 'image', src: `data:image/png;base64,${PNG}`, bytes: 70 });
    expect(result?.blocks[2]).toMatchObject({ uri: 'demo://resource/static/document/1', name: 'Blob Resource 1', title: null });
    expect(result?.structured).toBeNull();
    expect(result?.isError).toBe(false);
  });

  it('carries structuredContent, even a null one, apart from the blocks', () => {
    expect(readMcpResult({ content: [], structuredContent: { temperature: 33 } })?.structured).toEqual({ value: { temperature: 33 } });
    expect(readMcpResult({ content: [], structuredContent: null })?.structured).toEqual({ value: null });
  });

  it('does not make a data: URL of anything but an image type with clean base64', () => {
    expect(imageSource(PNG, 'text/html')).toEqual({ note: expect.stringContaining('text/html') });
    expect(imageSource('abc"><script>', 'image/png')).toEqual({ note: expect.stringContaining('base64') });
    expect(imageSource('abc', 'image/png')).toEqual({ note: expect.stringContaining('base64') });
    expect(imageSource(PNG, 'image/svg+xml; charset=utf-8')).toEqual({ src: `data:image/svg+xml;base64,${PNG}` });
    const refused = readMcpResult({ content: [{ type: 'image', data: PNG, mimeType: 'text/html' }] });
    expect(refused?.blocks[0]).toMatchObject({ kind: 'binary', what: 'image', mimeType: 'text/html' });
  });

  it('describes audio and binary resources instead of playing or decoding them', () => {
    const result = readMcpResult({
      content: [
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'demo://blob/1', mimeType: 'application/gzip', blob: 'H4sIAAAAAAAA' } },
        { type: 'resource', resource: { uri: 'demo://img', mimeType: 'image/png', blob: PNG } },
      ],
    });
    expect(result?.blocks[0]).toEqual({ kind: 'binary', what: 'audio', mimeType: 'audio/wav', bytes: 3 });
    expect(result?.blocks[1]).toMatchObject({ kind: 'binary', what: 'blob', bytes: 9, note: 'demo://blob/1' });
    expect(result?.blocks[2]).toMatchObject({ kind: 'image' });
  });

  it('keeps what it does not know as it came', () => {
    const odd = { type: 'hologram', frames: 3 };
    expect(readMcpResult({ content: [odd, 'plain', { type: 'text' }] })?.blocks).toEqual([
      { kind: 'unknown', value: odd },
      { kind: 'unknown', value: 'plain' },
      { kind: 'unknown', value: { type: 'text' } },
    ]);
  });
});

describe('readErrorContent', () => {
  it("reads TOOL_ERROR's result as failure content", () => {
    const error = { code: 'TOOL_ERROR', message: 'TOOL_ERROR: failed', result: { content: [{ type: 'text', text: 'no such file' }], isError: true } };
    expect(readErrorContent(error)).toEqual({ blocks: [{ kind: 'text', text: 'no such file' }], structured: null, isError: true });
    expect(readErrorContent({ code: 'TOOL_FAILED', message: 'x' })).toBeNull();
  });
});

describe('base64Bytes', () => {
  it('counts decoded bytes from the padding', () => {
    expect(base64Bytes('')).toBe(0);
    expect(base64Bytes('QQ==')).toBe(1);
    expect(base64Bytes('QUI=')).toBe(2);
    expect(base64Bytes('QUJD')).toBe(3);
  });
});
