import type { ErrorBody } from '../../shared/api';

/** An error as the operator reads it: `CODE: message`, without repeating a code the gateway already put in front. */
export const errorText = (error: ErrorBody) => (error.message.startsWith(error.code) ? error.message : `${error.code}: ${error.message}`);
