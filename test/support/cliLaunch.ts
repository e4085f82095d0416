/**
 * A built CLI started as its `capstan` bin starts it: Node with the V8 flags its shebang names
 * (`#!/usr/bin/env -S node <flags>`, which npm's Windows shim reads too), then the script. A
 * build whose shebang names none (an older one a bench compares) runs with none.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const SHEBANG = /^#!\/usr\/bin\/env(?: -S)? node((?: -[^\s]+)*)\s*$/;

export function nodeArgsFor(cli: string): string[] {
  const head = Buffer.alloc(256);
  const fd = openSync(cli, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const firstLine = head.toString('utf8').split('\n', 1)[0] ?? '';
  const match = SHEBANG.exec(firstLine);
  if (!match) throw new Error(`${cli} does not start with a node shebang: ${JSON.stringify(firstLine)}`);
  return match[1]!.split(' ').filter(Boolean);
}
