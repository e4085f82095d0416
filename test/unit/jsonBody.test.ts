import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { jsonBody } from '../../electron/transports/jsonBody';

const entries = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ id: `skills:skill-${index}`, name: `skill ${index}`, tags: index % 3 ? ['a', 'b'] : [], note: index % 5 ? undefined : 'fifth', revoked: index % 7 === 0 }));

describe('a large answer written as the socket takes it', () => {
  it('writes exactly the bytes JSON.stringify makes, in batches, for an answer with a long list', async () => {
    const value = {
      catalogGeneration: 4,
      skipped: undefined,
      loading: [],
      capabilities: entries(2_345),
      providers: [{ name: 'skills', count: 2_345 }],
      sparse: [...entries(1_001).map((entry, index) => (index === 500 ? undefined : entry))],
      label: 'ünïcödé ✓',
    };
    const body = jsonBody(value);
    expect(body).toBeInstanceOf(Readable);
    expect(await text(body as Readable)).toBe(JSON.stringify(value));
  });

  it('leaves a small answer, a list, an empty list and a value with toJSON as they are', () => {
    for (const value of [{ capabilities: entries(1_000) }, entries(5_000), { items: [] }, { at: new Date(0) }, null, 'text']) expect(jsonBody(value)).toBe(value);
  });

  it('writes an answer whose only long list comes first, and one whose fields are all left out but the list', async () => {
    for (const value of [{ items: entries(1_500), after: { nested: [1, 2] } }, { nothing: undefined, items: entries(1_001), alsoNothing: () => 1 }]) {
      expect(await text(jsonBody(value) as Readable)).toBe(JSON.stringify(value));
    }
  });
});
