import { defineTool, ToolArgumentError } from '../../catalog/tool';

export interface TimeNowResult {
  iso: string;
  epochMs: number;
  timezone: string;
  utcOffset: string;
  local: string;
}

interface ZoneFormatters {
  /** sv-SE formats as `YYYY-MM-DD HH:mm:ss`, which reads the same everywhere. */
  local: Intl.DateTimeFormat;
  offset: Intl.DateTimeFormat;
}

// Building an Intl formatter costs far more than formatting with one, so keep one pair per zone
// as asked (undefined: the host's zone). Bounded, since case variants of a name are all valid.
const formatters = new Map<string | undefined, ZoneFormatters>();
const MAX_CACHED_ZONES = 1000;

function zoneFormatters(timeZone: string | undefined): ZoneFormatters {
  let pair = formatters.get(timeZone);
  if (!pair) {
    if (formatters.size >= MAX_CACHED_ZONES) formatters.clear();
    pair = {
      local: new Intl.DateTimeFormat('sv-SE', { timeZone, dateStyle: 'short', timeStyle: 'medium' }),
      offset: new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }),
    };
    formatters.set(timeZone, pair);
  }
  return pair;
}

export function timeNow(timezone: string | undefined, now = new Date()): TimeNowResult {
  let zone: ZoneFormatters;
  try {
    zone = zoneFormatters(timezone);
  } catch {
    throw new ToolArgumentError('timezone', `unknown IANA time zone "${timezone}"`);
  }
  // `GMT+05:30` → `+05:30`; plain `GMT` → `+00:00`.
  const offset = zone.offset.formatToParts(now).find((part) => part.type === 'timeZoneName')?.value.replace('GMT', '');
  return {
    iso: now.toISOString(),
    epochMs: now.getTime(),
    timezone: timezone ?? zone.local.resolvedOptions().timeZone,
    utcOffset: offset || '+00:00',
    local: zone.local.format(now),
  };
}

export const timeNowTool = defineTool<{ timezone?: string }>({
  name: 'time_now',
  title: 'Current time',
  description: 'Current time of the gateway host with its time zone and UTC offset; optionally in another IANA time zone.',
  riskLevel: 'low',
  needConfirm: false,
  mutating: false,
  tags: ['time', 'clock', 'timezone'],
  inputSchema: {
    type: 'object',
    properties: {
      timezone: { type: 'string', minLength: 1, maxLength: 64, description: 'IANA time zone such as Europe/Paris' },
    },
    additionalProperties: false,
  },
  returnExample: {
    iso: '2026-11-30T09:15:02.118Z',
    epochMs: 1796030102118,
    timezone: 'Europe/Paris',
    utcOffset: '+01:00',
    local: '2026-11-30 10:15:02',
  } satisfies TimeNowResult,
  run: ({ timezone }) => timeNow(timezone),
});
