/**
 * Values a client sends must be JSON that Capstan can hash and store: canonical JSON (RFC 8785)
 * has no lone surrogates and no non-finite numbers, and JSON.parse happily yields both
 * (`"\ud800"`, `1e400`). Refusing them at the boundary keeps a bad value a 400 rather than a
 * fault deep in the ledger. Iterative, so a deeply nested body cannot overflow the stack.
 */
import { CapstanError } from '../../shared/errors';

export function assertWellFormed(input: unknown): void {
  const pending: { value: unknown; path: string }[] = [{ value: input, path: '' }];
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    const where = path === '' ? 'the input' : path.slice(1);
    if (typeof value === 'string') {
      if (!value.isWellFormed()) throw new CapstanError('BAD_REQUEST', `${where}: a string with a lone surrogate is not valid Unicode`, { field: where });
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new CapstanError('BAD_REQUEST', `${where}: ${value} is not a finite number`, { field: where });
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push({ value: item, path: `${path}.${index}` }));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (!key.isWellFormed()) throw new CapstanError('BAD_REQUEST', `${where}: a key with a lone surrogate is not valid Unicode`, { field: where });
        pending.push({ value: item, path: `${path}.${key}` });
      }
    }
  }
}
