/** How the console holds failures (renderer/api/errors.ts). */
import { describe, expect, it } from 'vitest';
import { ApiError, consoleError, toErrorBody } from '../../renderer/api/errors';

describe('the console error model', () => {
  it('an ApiError carries the envelope: body, requestId and task', () => {
    const error = new ApiError({
      requestId: 'tool-registry-1',
      taskId: 'task-1',
      error: { code: 'NOT_GRANTED', message: 'NOT_GRANTED: held discover, needed execute' },
    });
    expect(error.code).toBe('NOT_GRANTED');
    expect(error.message).toBe('NOT_GRANTED: held discover, needed execute');
    expect([error.requestId, error.taskId]).toEqual(['tool-registry-1', 'task-1']);
    expect(toErrorBody(error)).toBe(error.body);
  });

  it('errors the console writes read like the gateway’s: CODE: message', () => {
    expect(consoleError('GATEWAY_UNREACHABLE', 'The gateway cannot be reached').body).toEqual({
      code: 'GATEWAY_UNREACHABLE',
      message: 'GATEWAY_UNREACHABLE: The gateway cannot be reached',
    });
  });

  it('anything else thrown in the page is reported as the console’s own fault, not the gateway’s', () => {
    const body = toErrorBody(new TypeError('x is undefined'));
    expect(body.code).toBe('INTERNAL_ERROR');
    expect(body.message).toBe('INTERNAL_ERROR: The console itself failed, not the gateway: x is undefined');
    expect(toErrorBody('just a string').message).toContain('just a string');
  });
});
