/**
 * Admission to a task's capability context: a loaded tool schema or an activated skill body
 * must fit under the ceiling (model budget − minimal base − safety margin). Sizes are counted
 * with a real tokenizer (o200k_base); nothing loaded is ever evicted silently.
 */
import { createRequire } from 'node:module';
import { CapstanError } from '../../shared/errors';

type CountTokens = (text: string) => number;
let counter: CountTokens | undefined;

/**
 * gpt-tokenizer builds its o200k tables when it is loaded: about 0.2 s and tens of MB, which every
 * start paid before. Loaded on the first count instead (the first tool loaded or skill activated),
 * synchronously, because `estimateTokens` is (build/build.mjs gives main.cjs an `import.meta.url`).
 */
function countTokens(text: string): number {
  counter ??= (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: CountTokens }).countTokens;
  return counter(text);
}

export interface AdmissionBudget {
  /** The model's input budget in tokens. */
  budgetTokens: number;
  /** A minimal model base: system prompt, the request and room for a reply. */
  baseTokens: number;
  /** Kept free on top, because estimates are estimates. */
  marginTokens: number;
}

/** How long an admitted item stays: one model step, or the whole task (`/name` activation). */
export type ContextScope = 'step' | 'task';

export interface Admitted {
  id: string;
  tokens: number;
  scope: ContextScope;
}

/**
 * gpt-tokenizer's BPE grows much faster than the length of a single word: 256 KiB without a
 * space took 117 s in one call. Counted in slices of at most 1,024 characters, cut before a space
 * where there is one, any text costs time in proportion to its length (256 KiB in 0.1-0.3 s).
 * A cut inside a word may count a token more or less; the margin is there for estimates.
 */
const SLICE_CHARS = 1024;
/** How long the yielding estimate counts before it lets other work run. */
const YIELD_AFTER_MS = 10;

function* slices(text: string): Generator<string> {
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start + SLICE_CHARS / 2) end = space;
      else if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end -= 1; // keep a surrogate pair whole
    }
    yield text.slice(start, end);
    start = end;
  }
}

export function estimateTokens(text: string): number {
  let total = 0;
  for (const slice of slices(text)) total += countTokens(slice);
  return total;
}

/** The same estimate, letting other requests run every few milliseconds: for skill bodies, up to skills.maxFileBytes. */
export async function estimateTokensYielding(text: string): Promise<number> {
  let total = 0;
  let since = performance.now();
  for (const slice of slices(text)) {
    total += countTokens(slice);
    if (performance.now() - since > YIELD_AFTER_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
  return total;
}

export class CapabilityContext {
  readonly #items = new Map<string, Admitted>();

  constructor(readonly budget: AdmissionBudget) {
    if (this.ceiling <= 0) throw new Error('the admission budget leaves no room: raise the budget or lower base and margin');
  }

  get ceiling(): number {
    return this.budget.budgetTokens - this.budget.baseTokens - this.budget.marginTokens;
  }

  get inUse(): number {
    let total = 0;
    for (const item of this.#items.values()) total += item.tokens;
    return total;
  }

  get items(): Admitted[] {
    return [...this.#items.values()];
  }

  /** Whether `tokens` more would fit right now. */
  fits(tokens: number): boolean {
    return this.inUse + tokens <= this.ceiling;
  }

  /**
   * Admits an item, or throws BUDGET_EXCEEDED with the numbers. Admitting something already
   * present charges nothing again; a task scope outlives a step scope.
   */
  admit(id: string, tokens: number, scope: ContextScope): Admitted {
    const present = this.#items.get(id);
    if (present) {
      if (scope === 'task' && present.scope === 'step') present.scope = 'task';
      return present;
    }
    if (!this.fits(tokens)) {
      const inUse = this.inUse;
      throw new CapstanError(
        'BUDGET_EXCEEDED',
        `${id} needs about ${tokens} tokens; ${inUse} of the ${this.ceiling}-token ceiling are in use (budget ${this.budget.budgetTokens} − base ${this.budget.baseTokens} − margin ${this.budget.marginTokens})`,
        { need: tokens, margin: this.budget.marginTokens, ceiling: this.ceiling, inUse },
      );
    }
    const admitted = { id, tokens, scope };
    this.#items.set(id, admitted);
    return admitted;
  }

  /** Ends a model step: step-scoped items leave, and the caller is told which. */
  endStep(): Admitted[] {
    const released = this.items.filter((item) => item.scope === 'step');
    for (const item of released) this.#items.delete(item.id);
    return released;
  }
}
