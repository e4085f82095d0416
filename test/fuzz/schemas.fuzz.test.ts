/**
 * The fuzz campaign against providers' schemas (issue 18 item 1): tool schemas whose `pattern`
 * (or `patternProperties` name) comes from a small grammar of what makes a backtracking engine
 * blow up or what RE2 cannot take (nested quantifiers, alternations, backreferences, lookarounds,
 * Unicode classes, big repeat counts, malformed expressions), nested at random depths, some past
 * the 100 levels the gateway takes. Each tool is loaded through a real catalog (a provider whose
 * contents change between cases, reloaded like a server's list_changed) and its arguments checked
 * with generated strings, hostile ones (`a` × n and a `!`) among them.
 *
 * It holds that every tool is either callable or a diagnostic naming it, never a crash of the
 * load; that every check answers in time (CHECK_BOUND_MS: a property, not a benchmark) with
 * acceptance or a documented argument code; that the console's check
 * (renderer/features/tool-detail/argumentCheck.ts) gives the gateway's verdict; and that the MCP
 * client's check of a result against the same schema as an outputSchema
 * (electron/providers/mcp/outputSchemas.ts) refuses the same schemas and gives the same verdicts.
 *
 * `npm test` runs FUZZ_RUNS (default 150) cases; `npm run fuzz` runs 5,000; FUZZ_SEED replays one.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../electron/catalog/catalog';
import { assertValidArguments } from '../../electron/catalog/contract';
import type { ToolDefinition } from '../../electron/catalog/tool';
import { OutputSchemaValidator } from '../../electron/providers/mcp/outputSchemas';
import { checkArguments } from '../../renderer/features/tool-detail/argumentCheck';
import { CapstanError, errorCodes } from '../../shared/errors';
import { mutableProvider } from '../support/catalog';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** Generous, for two shared cores: backtracking on these inputs would take seconds to ages. */
const CHECK_BOUND_MS = 200;
const PROVIDER = 'fuzzed';

// ---- the grammar ----------------------------------------------------------------------------

const ATOMS = ['a', 'b', 'ab', '.', '\\d', '\\w', '\\s', '\\S', '[a-c]', '[^b]', '[\\s\\S]', '\\p{L}', '\\p{Lu}', '\\P{L}', '\\u00e9', 'é', '😀', '\\.', '\\b', '[]', '[^]'];
const QUANTIFIERS = ['*', '+', '?', '{2}', '{1,3}', '{0,}', '*?', '+?', '*', '+', '{1001}'];

const pattern: fc.Arbitrary<string> = fc
  .letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 6, arbitrary: fc.constantFrom(...ATOMS) },
      { weight: 3, arbitrary: fc.tuple(tie('node'), tie('node')).map(([x, y]) => x + y) },
      { weight: 3, arbitrary: fc.tuple(tie('node'), tie('node')).map(([x, y]) => `(${x}|${y})`) },
      { weight: 3, arbitrary: fc.tuple(tie('node'), fc.constantFrom(...QUANTIFIERS)).map(([x, q]) => `(${x})${q}`) },
      // The classic catastrophic shapes: a quantified group of a quantified thing, overlapping alternatives.
      { weight: 4, arbitrary: fc.tuple(tie('node'), fc.constantFrom('+', '*')).map(([x, q]) => `(${x}${q})${q}`) },
      { weight: 2, arbitrary: fc.tuple(tie('node'), tie('node')).map(([x, y]) => `(${x}|${x}${y})+`) },
      { weight: 1, arbitrary: tie('node').map((x) => `(?<n>${x})`) },
      // What RE2 cannot take (backreferences, lookarounds), and what is no regular expression at all.
      { weight: 1, arbitrary: tie('node').map((x) => `(${x})\\1`) },
      { weight: 1, arbitrary: tie('node').map((x) => `(?<g>${x})\\k<g>`) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('(?=', '(?!', '(?<=', '(?<!'), tie('node')).map(([look, x]) => `${look}${x})`) },
      { weight: 1, arbitrary: fc.constantFrom('(', 'a{2,1}', '[b-a]', '\\p{Nope}', '*') },
    ),
  }))
  .node.chain((body) => fc.tuple(fc.boolean(), fc.boolean()).map(([start, end]) => `${start ? '^' : ''}${body}${end ? '$' : ''}`));

/** Strings to check: short mixed ones, and long runs that make a backtracking engine blow up. */
const value: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', 'c', '!', 'é', 'A', '1', ' ', '\n', '_', '.', '😀', '\u2028'), maxLength: 40 }),
  fc.integer({ min: 0, max: 3_000 }).map((n) => `${'a'.repeat(n)}!`),
  fc.integer({ min: 0, max: 3_000 }).map((n) => 'a'.repeat(n)),
  fc.integer({ min: 0, max: 1_500 }).map((n) => `${'ab'.repeat(n)}c`),
);

interface Shape {
  pattern: string;
  /** Objects around the checked string: past about 50, the schema nests deeper than the gateway takes. */
  depth: number;
  /** The pattern names properties (`patternProperties`) instead of checking a value (`pattern`). */
  names: boolean;
}

const shape: fc.Arbitrary<Shape> = fc.record({
  pattern,
  depth: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 4 }) }, { weight: 1, arbitrary: fc.integer({ min: 45, max: 55 }) }),
  names: fc.boolean(),
});

/** The schema and, for a string, the arguments that put it where the pattern checks it. */
function schemaOf({ pattern: source, depth, names }: Shape): { schema: Record<string, unknown>; argsFor(value: string): Record<string, unknown> } {
  let schema: Record<string, unknown> = names
    ? { type: 'object', patternProperties: { [source]: { type: 'string' } }, additionalProperties: false }
    : { type: 'object', properties: { q: { type: 'string', pattern: source } }, required: ['q'] };
  const leaf = (text: string): Record<string, unknown> => (names ? { [text]: 'x' } : { q: text });
  for (let level = 0; level < depth; level += 1) schema = { type: 'object', properties: { n: schema }, required: ['n'] };
  return {
    schema,
    argsFor(text) {
      let args = leaf(text);
      for (let level = 0; level < depth; level += 1) args = { n: args };
      return args;
    },
  };
}

const definition = (name: string, schema: Record<string, unknown>): ToolDefinition => ({
  name,
  title: name,
  description: `fuzzed ${name}`,
  riskLevel: 'low',
  needConfirm: false,
  mutating: false,
  tags: ['mcp'],
  inputSchema: schema,
  outputSchema: schema,
  externalSchema: true,
  declared: null,
  returnExample: null,
  run: () => null,
});

/**
 * How long a check takes. One over the bound is measured again and the shorter kept: on shared
 * cores a garbage collection can land in any check, while backtracking is slow every time.
 */
function timed<T>(work: () => T): { value: T; ms: number } {
  const once = () => {
    const started = performance.now();
    const result = work();
    return { value: result, ms: performance.now() - started };
  };
  const first = once();
  if (first.ms < CHECK_BOUND_MS) return first;
  const again = once();
  return again.ms < first.ms ? again : first;
}

/** The gateway's verdict: null when accepted, else the code (documented: an argument code). */
function gatewayVerdict(check: () => void): string | null {
  try {
    check();
    return null;
  } catch (error) {
    if (!(error instanceof CapstanError)) throw error;
    return error.code;
  }
}

const catalog = new Catalog();
const remote = mutableProvider(PROVIDER, []);
const seen = { callable: 0, diagnostics: 0, refused: 0, accepted: 0, slowestMs: 0 };

afterAll(async () => {
  console.info(
    `schema fuzz: ${seen.callable} tools callable, ${seen.diagnostics} diagnostics; ${seen.accepted} checks accepted, ${seen.refused} refused; slowest check ${seen.slowestMs.toFixed(1)} ms`,
  );
  await catalog.close();
});

describe('fuzzed provider schemas', () => {
  it('load as a tool or a diagnostic; every check is prompt, documented, and the console, the gateway and the output check agree', { timeout: 600_000 }, async () => {
    await catalog.addProvider(remote.provider);
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(shape, { minLength: 1, maxLength: 3 }), fc.array(value, { minLength: 1, maxLength: 5 }), async (shapes, values) => {
        round += 1;
        const tools = shapes.map((each, index) => ({ name: `t${round}_${index}`, each, ...schemaOf(each) }));
        remote.state.tools = tools.map(({ name, schema }) => definition(name, schema));
        await catalog.reload(PROVIDER);
        const reasons = catalog.diagnostics().map(({ reason }) => reason);
        const outputs = new OutputSchemaValidator();
        const outputProblems = await outputs.prepare(tools.map(({ name, schema }) => ({ name, outputSchema: schema })));

        for (const { name, schema, argsFor } of tools) {
          const live = catalog.live(`${PROVIDER}:${name}`)?.tool;
          const diagnostic = reasons.find((reason) => reason.startsWith(`tool "${name}" is invalid: `));
          // Exactly one of the two: a tool to call, or a diagnostic saying why not.
          expect(Boolean(live) !== Boolean(diagnostic), `${name}: ${diagnostic ?? 'loaded'}`).toBe(true);
          // The output check refuses a schema exactly when it does not compile as an input schema
          // (a schema too deep is the catalog's to report, for input and output alike).
          const outputProblem = outputProblems.get(name);
          if (live) expect(outputProblem, name).toBeUndefined();
          else if (diagnostic!.includes('inputSchema does not compile: ')) {
            expect(outputProblem, name).toBe(diagnostic!.replace('inputSchema does not compile', 'outputSchema does not compile'));
          } else expect(diagnostic, name).toMatch(/nests deeper than 100 levels$/);
          if (!live) {
            seen.diagnostics += 1;
            continue;
          }
          seen.callable += 1;
          const validate = outputs.getValidator(schema);
          for (const text of values) {
            const args = argsFor(text);
            const gateway = timed(() => gatewayVerdict(() => assertValidArguments(live, args)));
            const page = timed(() => checkArguments(live.contract.inputSchema, args));
            const output = timed(() => validate(args));
            const label = `${name} /${JSON.stringify(schema).slice(0, 300)}/ on ${JSON.stringify(text).slice(0, 60)} (${text.length} characters)`;
            seen.slowestMs = Math.max(seen.slowestMs, gateway.ms, page.ms, output.ms);
            for (const [who, { ms }] of [['gateway', gateway], ['console', page], ['output check', output]] as const) {
              expect(ms, `${who}: ${label}`).toBeLessThan(CHECK_BOUND_MS);
            }
            if (gateway.value === null) {
              seen.accepted += 1;
              expect(page.value, `console: ${label}`).toEqual([]);
              expect(output.value.valid, `output check: ${label}`).toBe(true);
            } else {
              seen.refused += 1;
              expect(['ARGUMENT_INVALID', 'ARGUMENT_MISSING'], label).toContain(gateway.value);
              expect(errorCodes).toHaveProperty(gateway.value);
              expect(page.value.map(({ code }) => code), `console: ${label}`).toContain(gateway.value);
              expect(output.value.valid, `output check: ${label}`).toBe(false);
            }
          }
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });
});
