/**
 * Compiles a capability-id pattern, as grants (runtime/grants.ts) and tool policy rules
 * (catalog/toolPolicy.ts) write them, into a matcher for whole ids: `*` matches any run of
 * characters, everything else is literal. Not a RegExp: `*a*a*a*b` would backtrack
 * polynomially on a long id, and patterns come from clients. Instead the literal pieces between
 * the stars are found left to right, each at its earliest place after the previous one (the
 * earliest place leaves the most room for the rest), so a match is a few `indexOf` scans:
 * at most O(id length × pattern length), with no backtracking.
 */
export function globMatcher(pattern: string): (id: string) => boolean {
  const pieces = pattern.split('*');
  if (pieces.length === 1) return (id) => id === pattern;
  const head = pieces[0]!;
  const tail = pieces.at(-1)!;
  const middle = pieces.slice(1, -1).filter(Boolean);
  return (id) => {
    if (id.length < head.length + tail.length || !id.startsWith(head) || !id.endsWith(tail)) return false;
    const end = id.length - tail.length;
    let at = head.length;
    for (const piece of middle) {
      const found = id.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}
