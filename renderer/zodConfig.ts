/**
 * Zod compiles fast parsers with `new Function` unless told not to; even its feature probe
 * counts as a CSP violation under the console's `script-src 'self'`. Imported first by main.tsx,
 * before anything parses.
 */
import { z } from 'zod';

z.config({ jitless: true });
