/**
 * A call's result as the client receives it and as the ledger's digest covers it: one canonical
 * serialization serves both (runtime/call.ts), so what a client sends back to /ledger/evidence
 * matches, whatever the tool returned.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeFixture, testTool, type RuntimeFixture } from '../support/runtime';

describe('a call result', () => {
  let fixture: RuntimeFixture | undefined;
  afterEach(() => fixture?.close());

  const run = async (result: () => unknown) => {
    fixture = await runtimeFixture({ tools: [testTool({ name: 't', description: 'returns what it is given', run: result })] });
    const task = fixture.runtime.start('s', 'results');
    const outcome = await fixture.runtime.runCall(task, { requestId: 'r1', capability: 'test:t', mutating: false, timeoutMs: 1000 }, result);
    const [finished] = fixture.ledger.query({ requestId: 'r1', kind: 'call_finished' });
    return { outcome, finished: finished!, ledger: fixture.ledger };
  };

  it('is the JSON of what the tool returned, and its digest in the ledger is the digest of what the client receives', async () => {
    const { outcome, finished, ledger } = await run(() => ({ z: 1, a: { y: [1, 'two', null], b: undefined, when: new Date(0) }, nan: Number.NaN }));
    expect(outcome).toMatchObject({ status: 'ok', result: { z: 1, a: { y: [1, 'two', null], when: '1970-01-01T00:00:00.000Z' }, nan: null } });
    if (outcome.status !== 'ok') throw new Error('the call failed');
    expect(JSON.parse(outcome.resultJson)).toEqual(outcome.result);
    expect(finished.details.resultDigest).toBe(ledger.digest(outcome.result));
    expect(finished.details.resultDigest).toBe(ledger.digest(JSON.parse(JSON.stringify(outcome.result))));
  });

  it('is null when the tool returns nothing', async () => {
    const { outcome, finished, ledger } = await run(() => undefined);
    expect(outcome).toMatchObject({ status: 'ok', result: null, resultJson: 'null' });
    expect(finished.details.resultDigest).toBe(ledger.digest(null));
  });

  it('fails the call, on record, when the tool returns what JSON cannot carry', async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const value of [{ big: 10n }, cycle, { text: '\ud800' }]) {
      const { outcome, finished } = await run(() => value);
      expect(outcome).toMatchObject({ status: 'error', error: { code: 'TOOL_FAILED', message: expect.stringContaining('returned a value that is not JSON') } });
      expect(finished.details).toMatchObject({ status: 'error', code: 'TOOL_FAILED' });
      fixture!.close();
      fixture = undefined;
    }
  });
});
