/**
 * lexical-v1: the deterministic analyzer behind capability search. No embeddings, no hidden
 * router: a query is normalized and split into terms, each term scores the best field it hits,
 * and equal scores fall back to canonical id order. An empty result only means no lexical match.
 */
import { normalize, terms } from '../../shared/lexical';

export type LexicalField = 'name' | 'tags' | 'description' | 'provider' | 'kind';

/**
 * Field weights, in the order the design fixes: name term > tag > description > provider > kind.
 * Even numbers, so the half weight of a prefix hit stays an integer.
 */
const FIELDS: readonly { field: LexicalField; weight: number }[] = [
  { field: 'name', weight: 2000 },
  { field: 'tags', weight: 200 },
  { field: 'description', weight: 20 },
  { field: 'provider', weight: 4 },
  { field: 'kind', weight: 2 },
];
/** A query equal to the whole name outranks any mix of term hits. */
const EXACT_NAME_BONUS = 2_000_000;
const DOC_BITS = 2 ** 24;
/** A term that is only a prefix of a field term (search as you type) scores half. */
const PREFIX_DIVISOR = 2;
const MIN_PREFIX_LENGTH = 2;

export interface LexicalDocument {
  /** Canonical capability id, `<provider>:<name>`; documents are ranked by it on equal scores. */
  id: string;
  name: string;
  kind: string;
  provider: string;
  tags: readonly string[];
  description: string;
}

export interface LexicalHit {
  /** Position of the document in the index (its rank in canonical id order). */
  doc: number;
  score: number;
  matched: LexicalField[];
}

interface Postings {
  docs: number[];
  /** Bit i set: the term occurs in FIELDS[i] of that document. */
  masks: number[];
}

export class LexicalIndex {
  readonly documents: readonly LexicalDocument[];
  readonly #postings = new Map<string, Postings>();
  /** Every distinct term, sorted, for prefix lookups by binary search. */
  readonly #sortedTerms: string[];
  readonly #normalizedNames: string[];
  // Scratch space reused by every query: search is synchronous, so one set per index suffices.
  readonly #scores: Float64Array;
  readonly #termBest: Float64Array;
  readonly #matchedMasks: Uint8Array;

  /** Documents must be unique by id; they are ordered by id here. */
  constructor(documents: readonly LexicalDocument[]) {
    if (documents.length >= DOC_BITS) throw new Error(`lexical-v1 indexes at most ${DOC_BITS - 1} documents`);
    this.documents = [...documents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.#normalizedNames = this.documents.map((doc) => normalize(doc.name));
    this.documents.forEach((doc, index) => {
      const fieldTerms: string[][] = [terms(doc.name), doc.tags.flatMap(terms), terms(doc.description), terms(doc.provider), terms(doc.kind)];
      const masks = new Map<string, number>();
      fieldTerms.forEach((list, bit) => list.forEach((term) => masks.set(term, (masks.get(term) ?? 0) | (1 << bit))));
      for (const [term, mask] of masks) {
        let postings = this.#postings.get(term);
        if (!postings) this.#postings.set(term, (postings = { docs: [], masks: [] }));
        postings.docs.push(index);
        postings.masks.push(mask);
      }
    });
    this.#sortedTerms = [...this.#postings.keys()].sort();
    this.#scores = new Float64Array(this.documents.length);
    this.#termBest = new Float64Array(this.documents.length);
    this.#matchedMasks = new Uint8Array(this.documents.length);
  }

  /**
   * All documents matching the query that `accept` lets through, best first, ties by canonical
   * id. A query with no terms matches nothing. Hits are materialized only for the slice asked
   * for, so a broad query over a large catalog costs a sort, not thousands of objects.
   */
  search(query: string, accept: (doc: number) => boolean = () => true): LexicalResult {
    const queryTerms = [...new Set(terms(query))];
    if (queryTerms.length === 0) return EMPTY_RESULT;
    const scores = this.#scores;
    const masks = this.#matchedMasks;
    const termBest = this.#termBest;
    const touched: number[] = [];

    for (const term of queryTerms) {
      const termTouched: number[] = [];
      const hit = (postings: Postings, divisor: number) => {
        for (let i = 0; i < postings.docs.length; i++) {
          const doc = postings.docs[i]!;
          const mask = postings.masks[i]!;
          const weight = FIELDS[31 - Math.clz32(mask & -mask)]!.weight / divisor;
          if (termBest[doc] === 0) termTouched.push(doc);
          if (weight > termBest[doc]!) termBest[doc] = weight;
          masks[doc]! |= mask;
        }
      };
      const exact = this.#postings.get(term);
      if (exact) hit(exact, 1);
      if (term.length >= MIN_PREFIX_LENGTH) {
        for (let i = lowerBound(this.#sortedTerms, term); i < this.#sortedTerms.length; i++) {
          const candidate = this.#sortedTerms[i]!;
          if (!candidate.startsWith(term)) break;
          if (candidate !== term) hit(this.#postings.get(candidate)!, PREFIX_DIVISOR);
        }
      }
      for (const doc of termTouched) {
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += termBest[doc]!;
        termBest[doc] = 0;
      }
    }

    const whole = normalize(query).trim();
    // Sort keys pack (integer score, doc) into one float so a typed-array sort orders them:
    // higher scores first, then lower doc positions, i.e. canonical id order.
    const keys = new Float64Array(touched.length);
    let kept = 0;
    for (const doc of touched) {
      if (accept(doc)) {
        const score = scores[doc]! + (this.#normalizedNames[doc] === whole ? EXACT_NAME_BONUS : 0);
        keys[kept++] = -score * DOC_BITS + doc;
      }
    }
    const order = keys.subarray(0, kept).sort();
    const docs = new Int32Array(kept);
    const resultScores = new Float64Array(kept);
    const resultMasks = new Uint8Array(kept);
    for (let i = 0; i < kept; i++) {
      const key = order[i]!;
      const doc = key - Math.floor(key / DOC_BITS) * DOC_BITS;
      docs[i] = doc;
      resultScores[i] = -(key - doc) / DOC_BITS;
      resultMasks[i] = masks[doc]!;
    }
    // Leave the scratch space clean for the next query.
    for (const doc of touched) {
      scores[doc] = 0;
      masks[doc] = 0;
    }
    return new LexicalResult(docs, resultScores, resultMasks);
  }
}

/** The ordered matches of one query; hits are built on demand. */
export class LexicalResult {
  constructor(
    private readonly docs: Int32Array,
    private readonly scores: Float64Array,
    private readonly masks: Uint8Array,
  ) {}

  get length(): number {
    return this.docs.length;
  }

  /** The document at this rank, without building its hit. */
  doc(rank: number): number {
    return this.docs[rank]!;
  }

  hit(rank: number): LexicalHit {
    return { doc: this.docs[rank]!, score: this.scores[rank]!, matched: MATCHED_FIELDS[this.masks[rank]!]! };
  }

  slice(start = 0, end = this.length): LexicalHit[] {
    const hits: LexicalHit[] = [];
    for (let rank = Math.max(0, start); rank < Math.min(end, this.length); rank++) hits.push(this.hit(rank));
    return hits;
  }
}

/** The matched-field list for each of the 32 field masks, built once and shared by every hit. */
const MATCHED_FIELDS: readonly LexicalField[][] = Array.from({ length: 1 << FIELDS.length }, (_, mask) =>
  FIELDS.filter((_, bit) => mask & (1 << bit)).map((f) => f.field),
);

const EMPTY_RESULT = new LexicalResult(new Int32Array(0), new Float64Array(0), new Uint8Array(0));

function lowerBound(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
