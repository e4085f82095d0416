/**
 * How a tool's `structuredContent` is checked against its `outputSchema`. The SDK client checks
 * every result of a tool that declares one, with whatever `jsonSchemaValidator` it is given; its
 * own is Ajv with JavaScript's backtracking `RegExp`, so a server's outputSchema with
 * `pattern: "^(a+)+$"` and an answer of 10,000 `a`s and a `!` would hold the gateway's event loop
 * for longer than anyone waits. This one compiles with the very compilers the catalog compiles
 * input schemas with (electron/catalog/contract.ts ExternalSchemaCompilers: RE2 for `pattern` and
 * `patternProperties`, the same checked formats, the dialect the schema's `$schema` names), and
 * refuses what the catalog refuses in an input schema: a pattern RE2 cannot take, an unread
 * dialect, a schema nested deeper than MAX_SCHEMA_DEPTH.
 *
 * The provider checks each listed tool's outputSchema here as it lists them (`prepare`, in slices
 * that let the event loop run), and a tool whose outputSchema does not compile is a diagnostic, not
 * a tool, as one whose inputSchema does not. The SDK then asks for validators of the same schemas
 * (all of a listing's on the first call after it) and gets them compiled already.
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';
import type { ValidateFunction } from 'ajv';
import { MAX_SCHEMA_DEPTH, nestedDeeperThan } from '../../../shared/argumentRules';
import { ExternalSchemaCompilers } from '../../catalog/contract';
import { canonicalJson } from '../../catalog/digest';

/** How long `prepare` compiles before it lets the event loop run (the catalog's slice too). */
const YIELD_EVERY_MS = 10;
/** The most of a failure's wording a caller is told: an Ajv message quotes the schema (a pattern, an enum). */
const MAX_MESSAGE = 300;

type Compiled = { validate: ValidateFunction } | { problem: string; tooDeep: boolean };

export class OutputSchemaValidator implements jsonSchemaValidator {
  #compilers = new ExternalSchemaCompilers();
  /** By the schema's canonical JSON: what the SDK asks for is a copy of what the provider listed. */
  #compiled = new Map<string, Compiled>();
  #bySchema = new WeakMap<object, Compiled>();

  /**
   * Compiles the outputSchemas of a listing (those compiled for an earlier listing are kept) and
   * forgets every other: a fresh set of compilers, so the schemas of replaced tools go with them.
   * Resolves with why each tool whose outputSchema does not compile cannot be a tool, by name;
   * a schema nested too deep is left to the catalog, which says so of any tool's schema.
   */
  async prepare(tools: ReadonlyArray<{ name: string; outputSchema?: unknown }>): Promise<Map<string, string>> {
    const before = this.#compiled;
    this.#compiled = new Map();
    this.#compilers = new ExternalSchemaCompilers();
    const problems = new Map<string, string>();
    let yielded = performance.now();
    for (const { name, outputSchema } of tools) {
      if (!isSchema(outputSchema)) continue;
      if (performance.now() - yielded > YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        yielded = performance.now();
      }
      const compiled = this.#compile(outputSchema, before);
      if ('problem' in compiled && !compiled.tooDeep) problems.set(name, `tool "${name}" is invalid: outputSchema does not compile: ${compiled.problem}`);
    }
    return problems;
  }

  /**
   * The SDK's entry point. A schema that does not compile throws: the SDK then refuses calls to
   * that tool before sending them (InvalidParams, which the gateway reports as TOOL_FAILED), and
   * no other tool's are affected.
   */
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    // Asked on every call, with the very schema object the catalog's tool holds (calls.ts): found
    // by that object first, rather than by its canonical JSON, made afresh each time.
    let compiled = this.#bySchema.get(schema);
    if (!compiled) this.#bySchema.set(schema, (compiled = this.#compile(schema as Record<string, unknown>)));
    if ('problem' in compiled) throw new Error(compiled.problem);
    const { validate } = compiled;
    return (input: unknown) => {
      if (validate(input)) return { valid: true, data: input as T, errorMessage: undefined };
      const [error] = validate.errors ?? [];
      const message = error ? `${error.instancePath || '(the whole result)'} ${error.message ?? 'is invalid'}` : 'does not match';
      return { valid: false, data: undefined, errorMessage: message.slice(0, MAX_MESSAGE) };
    };
  }

  #compile(schema: Record<string, unknown>, earlier?: Map<string, Compiled>): Compiled {
    // Measured before anything recurses through it (canonical JSON, Ajv), whatever the depth.
    if (nestedDeeperThan(schema, MAX_SCHEMA_DEPTH)) return { problem: `outputSchema nests deeper than ${MAX_SCHEMA_DEPTH} levels`, tooDeep: true };
    const key = canonicalJson(schema);
    let compiled = this.#compiled.get(key) ?? earlier?.get(key);
    if (!compiled) {
      try {
        compiled = { validate: this.#compilers.compile(schema) };
      } catch (error) {
        compiled = { problem: (error as Error).message, tooDeep: false };
      }
    }
    this.#compiled.set(key, compiled);
    return compiled;
  }
}

const isSchema = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
