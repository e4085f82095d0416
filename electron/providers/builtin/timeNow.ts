import { defineTool, ToolArgumentError } from '../../catalog/tool';

export interface TimeNowResult {
  iso: string;
  epochMs: number;
  timezone: string;
  utcOffset: string;
  local: string;
}

// Building an Intl formatter costs far more than formatting with one, so keep one per zone as
// asked (undefined: the host's zone), with the zone's resolved name, which resolvedOptions()
// would build a fresh object for on every call. Bounded, since case variants of a name are all valid.
interface ZoneFormatter {
  format: Intl.DateTimeFormat;
  timeZone: string;
  /** The last second formatted (epoch seconds) and its text: the wall clock reads the same all that second. */
  second?: number;
  local?: string;
}
const formatters = new Map<string | undefined, ZoneFormatter>();
const MAX_CACHED_ZONES = 1000;

/** sv-SE formats as `YYYY-MM-DD HH:mm:ss`, which reads the same everywhere. */
function localFormatter(timeZone: string | undefined): ZoneFormatter {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    if (formatters.size >= MAX_CACHED_ZONES) formatters.clear();
    const format = new Intl.DateTimeFormat('sv-SE', { timeZone, dateStyle: 'short', timeStyle: 'medium' });
    formatter = { format, timeZone: format.resolvedOptions().timeZone };
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The zone's UTC offset, read off the local wall-clock time: `+05:30`, `-03:00`, `+00:00`. */
function utcOffset(local: string, now: Date): string {
  const wallClockAsUtc = Date.parse(`${local.replace(' ', 'T')}Z`);
  const minutes = Math.round((wallClockAsUtc - Math.floor(now.getTime() / 1000) * 1000) / 60_000);
  const hh = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
  const mm = String(Math.abs(minutes) % 60).padStart(2, '0');
  return `${minutes < 0 ? '-' : '+'}${hh}:${mm}`;
}

export function timeNow(timezone: string | undefined, now = new Date()): TimeNowResult {
  let formatter: ZoneFormatter;
  try {
    formatter = localFormatter(timezone);
  } catch {
    throw new ToolArgumentError('timezone', `unknown IANA time zone "${timezone}"`);
  }
  // Formatting is most of a call's cost (ICU), and under load many calls fall in the same second.
  const second = Math.floor(now.getTime() / 1000);
  if (formatter.second !== second) {
    formatter.local = formatter.format.format(now);
    formatter.second = second;
  }
  const local = formatter.local!;
  return {
    iso: now.toISOString(),
    epochMs: now.getTime(),
    timezone: timezone ?? formatter.timeZone,
    utcOffset: utcOffset(local, now),
    local,
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
