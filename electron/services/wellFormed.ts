/**
 * Values a client sends must be JSON that Capstan can hash and store: canonical JSON (RFC 8785)
 * has no lone surrogates and no non-finite numbers, and JSON.parse happily yields both
 * (`"\ud800"`, `1e400`). Refusing them at the boundary keeps a bad value a 400 rather than a
 * fault deep in the ledger.
 *
 * Nesting is bounded too. Hashing, schema validation and logging walk values recursively, and a
 * 1 MiB body can nest 100,000 levels deep: deeper than any real input, deep enough to overflow
 * a recursive walker. This walk itself is iterative, and it builds a value's path only when it
 * refuses it: building every path as it went made a deep body quadratic (70 s of blocked event
 * loop for 600 KB, found by the fuzzer).
 */
import { CapstanError } from '../../shared/errors';

export const MAX_DEPTH = 100;

interface Node {
  value: unknown;
  key: string | undefined;
  parent: Node | undefined;
  depth: number;
}

export function assertWellFormed(input: unknown): void {
  const pending: Node[] = [{ value: input, key: undefined, parent: undefined, depth: 0 }];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const { value } = node;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) refuse(node, 'a string with a lone surrogate is not valid Unicode');
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) refuse(node, `${value} is not a finite number`);
    } else if (typeof value === 'object' && value !== null) {
      // Depth first, so a cycle (possible over IPC, never in JSON) also ends here, quickly.
      if (node.depth >= MAX_DEPTH) throw new CapstanError('BAD_REQUEST', `the input is nested deeper than ${MAX_DEPTH} levels`);
      for (const [key, item] of Object.entries(value)) {
        if (!key.isWellFormed()) refuse(node, 'a key with a lone surrogate is not valid Unicode');
        pending.push({ value: item, key, parent: node, depth: node.depth + 1 });
      }
    }
  }
}

function refuse(node: Node, problem: string): never {
  const keys: string[] = [];
  for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) keys.push(at.key);
  const where = keys.length === 0 ? 'the input' : keys.reverse().join('.');
  throw new CapstanError('BAD_REQUEST', `${where}: ${problem}`, { field: where });
}
