import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LexicalIndex, type LexicalDocument } from '../../electron/catalog/lexical';
import { matchRanges, queryTerms, termSpans } from '../../renderer/features/search/highlight';
import { normalize, terms } from '../../shared/lexical';

const doc = (provider: string, name: string, extra: Partial<LexicalDocument> = {}): LexicalDocument => ({
  id: `${provider}:${name}`,
  name,
  kind: 'tool',
  provider,
  tags: [],
  description: '',
  ...extra,
});

const ids = (index: LexicalIndex, query: string) => index.search(query).slice().map((hit) => index.documents[hit.doc]!.id);

describe('lexical-v1 normalization', () => {
  it('folds case and Unicode compatibility forms', () => {
    expect(normalize('ＴＩＭＥ_Now')).toBe('time_now');
    expect(normalize('ﬁle')).toBe('file');
    expect(terms('Straße Ⅻ')).toEqual(['straße', 'xii']);
  });

  it('splits at whitespace, _, -, ., punctuation and camelCase', () => {
    expect(terms('time_now')).toEqual(['time', 'now']);
    expect(terms('release-checklist.v2')).toEqual(['release', 'checklist', 'v2']);
    expect(terms('httpCheck HTTPServer getURLFor2FA')).toEqual(['http', 'check', 'http', 'server', 'get', 'url', 'for2', 'fa']);
    expect(terms('  \t ')).toEqual([]);
  });
});

describe('lexical-v1 scoring', () => {
  const index = new LexicalIndex([
    doc('builtin', 'note_search', { tags: ['notes'], description: 'Search saved notes' }),
    doc('builtin', 'search', { description: 'Generic search' }),
    doc('builtin', 'todo_list', { tags: ['search'], description: 'List to-dos' }),
    doc('builtin', 'device_inspect', { description: 'Inspect the device; no search here' }),
    doc('search', 'time_now', { description: 'Current time' }),
    doc('skills', 'release', { kind: 'skill', description: 'Release steps' }),
  ]);

  it('ranks exact name > name term > tag > description > provider name', () => {
    expect(ids(index, 'search')).toEqual([
      'builtin:search',
      'builtin:note_search',
      'builtin:todo_list',
      'builtin:device_inspect',
      'search:time_now',
    ]);
  });

  it('matches the kind last', () => {
    const hits = index.search('skill').slice();
    expect(hits.map((hit) => [index.documents[hit.doc]!.id, hit.matched])).toEqual([['skills:release', ['provider', 'kind']]]);
  });

  it('reports the score and every field each result matched', () => {
    const [first, second] = index.search('notes search').slice();
    expect(index.documents[first!.doc]!.id).toBe('builtin:note_search');
    expect(first!.matched).toEqual(['name', 'tags', 'description']);
    expect(first!.score).toBeGreaterThan(second!.score);
  });

  it('breaks equal scores by canonical id', () => {
    const tied = new LexicalIndex([doc('b', 'alpha'), doc('a', 'alpha'), doc('c', 'alpha'), doc('a', 'Alpha_x')]);
    expect(ids(tied, 'alpha')).toEqual(['a:alpha', 'b:alpha', 'c:alpha', 'a:Alpha_x']);
  });

  it('matches a term that starts a field term, at half weight', () => {
    expect(ids(index, 'note')).toEqual(['builtin:note_search']);
    expect(index.search('insp').hit(0).score).toBe(index.search('inspect').hit(0).score / 2);
    expect(ids(index, 'n')).toEqual([]);
  });

  it('returns nothing when nothing matches, and never guesses', () => {
    expect(index.search('printer').length).toBe(0);
    expect(index.search('serach').length).toBe(0);
    expect(index.search('').length).toBe(0);
    expect(index.search(' -_. ').length).toBe(0);
  });

  it('hands out any slice of the ordered hits', () => {
    const result = index.search('search');
    expect(result.slice(1, 3)).toEqual(result.slice().slice(1, 3));
    expect(result.slice(4, 99)).toEqual([result.hit(4)]);
    expect(result.slice(9, 12)).toEqual([]);
  });

  it('honours a filter without disturbing the order of what remains', () => {
    const builtinOnly = index.search('search', (d) => index.documents[d]!.provider === 'builtin').slice();
    expect(builtinOnly.map((hit) => index.documents[hit.doc]!.id)).toEqual(ids(index, 'search').filter((id) => id.startsWith('builtin:')));
  });
});

describe('lexical-v1 properties', () => {
  const word = fc.constantFrom('time', 'now', 'note', 'search', 'printer', 'floor', 'todo', 'list', 'http', 'check', 'Release', 'x');
  const docs = fc.uniqueArray(
    fc.record({
      provider: fc.constantFrom('builtin', 'skills', 'mcp'),
      name: fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join('_')),
      tags: fc.array(word, { maxLength: 3 }),
      description: fc.array(word, { maxLength: 6 }).map((w) => w.join(' ')),
    }),
    { selector: (d) => `${d.provider}:${d.name}`, maxLength: 40 },
  );
  const query = fc.array(word, { minLength: 0, maxLength: 3 }).map((w) => w.join(' '));

  it('gives the same order for the same input, whatever the insertion order', () => {
    fc.assert(
      fc.property(docs, query, (list, q) => {
        const forward = new LexicalIndex(list.map((d) => doc(d.provider, d.name, d)));
        const backward = new LexicalIndex([...list].reverse().map((d) => doc(d.provider, d.name, d)));
        expect(ids(forward, q)).toEqual(ids(backward, q));
        expect(ids(forward, q)).toEqual(ids(forward, q));
      }),
    );
  });

  it('orders by descending score, then ascending id, with no duplicates', () => {
    fc.assert(
      fc.property(docs, query, (list, q) => {
        const index = new LexicalIndex(list.map((d) => doc(d.provider, d.name, d)));
        const hits = index.search(q).slice();
        expect(new Set(hits.map((h) => h.doc)).size).toBe(hits.length);
        for (let i = 1; i < hits.length; i++) {
          const [a, b] = [hits[i - 1]!, hits[i]!];
          expect(a.score > b.score || (a.score === b.score && index.documents[a.doc]!.id < index.documents[b.doc]!.id)).toBe(true);
        }
      }),
    );
  });
});

describe("the console's highlighter", () => {
  const marked = (text: string, query: string) => matchRanges(text, queryTerms(query)).map(([start, end]) => text.slice(start, end));

  it('splits text into the same terms as the index', () => {
    const samples = ['note_search', 'httpCheck HTTPServer getURLFor2FA', 'HTTP2Check IPv4 AB1', 'release-checklist.v2', 'Straße ＴＩＭＥ_Now ﬁle Ⅻ', 'cafe\u0301 日本Tokyo'];
    for (const text of samples) expect(termSpans(text).map((span) => span.term), text).toEqual(terms(text));
    const unit = fc.constantFrom(...'aZm09_-. /', 'é', 'É', 'ß', 'ñ', '日', 'Ｔ', 'ｔ', 'ﬁ', 'Ⅻ', '\u0301');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 24 }), (text) => {
        expect(termSpans(text).map((span) => span.term)).toEqual(terms(text));
      }),
    );
    expect(queryTerms('Note note_search')).toEqual(['note', 'search']);
  });

  it('marks whole terms and term prefixes from two characters on, where the index matched them', () => {
    expect(marked('note_search', 'note search')).toEqual(['note', 'search']);
    expect(marked('getURLFor2FA', 'url fa')).toEqual(['URL', 'FA']);
    expect(marked('HTTP2Check', 'http2 che')).toEqual(['HTTP2Che']);
    expect(marked('Inspect the device', 'insp')).toEqual(['Insp']);
    expect(marked('note_search', 'n')).toEqual([]);
  });

  it('marks a whole word when normalizing changed its length', () => {
    expect(marked('a ﬁle', 'file')).toEqual(['ﬁle']);
    expect(marked('cafe\u0301 menu', 'café')).toEqual(['cafe\u0301']);
  });
});
