/**
 * The builtin catalog as tests count it, derived from the provider's own list
 * (electron/providers/builtin) rather than written into each test: a builtin added or removed
 * changes these figures, and only test/unit/builtins.test.ts, which names the seed catalog tool
 * by tool, has to say so. Unit, integration and end-to-end tests (a Playwright worker is a
 * plain Node process too) all import it.
 */
import { DEFAULT_CONSOLE_SETTINGS } from '../../shared/api';
import { builtinTools } from '../../electron/providers/builtin';
import type { Database } from '../../electron/store/database';

// Described, never run: each factory only keeps the store and the data dir for its calls, so
// none is opened here (a factory that used them at once would throw on this stand-in).
const tools = builtinTools({ db: undefined as unknown as Database, dataDir: '' });

export const BUILTIN = {
  /** Tool names, in the provider's order. */
  names: tools.map((tool) => tool.name),
  /** Every builtin tool: the header's "Tools", the builtin provider's tool count. */
  total: tools.length,
  /** Run without a confirmation: the header's "No confirmation", the tools Settings can whitelist. */
  direct: tools.filter((tool) => !tool.needConfirm).length,
  /** Run only after the operator confirms: the header's "Need confirmation", the locked tools. */
  needConfirm: tools.filter((tool) => tool.needConfirm).length,
  /** What the "Low risk" filter shows. */
  lowRisk: tools.filter((tool) => tool.riskLevel === 'low').length,
  /** Unlocked by the console's default whitelist: executable with one click, the rest of `direct` read-only. */
  unlocked: tools.filter((tool) => !tool.needConfirm && DEFAULT_CONSOLE_SETTINGS.whitelist.includes(tool.name)).length,
} as const;
