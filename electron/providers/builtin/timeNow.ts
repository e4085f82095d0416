import { defineTool, ToolArgumentError } from '../../catalog/tool';

export interface TimeNowResult {
  iso: string;
  epochMs: number;
  timezone: string;
  utcOffset: string;
  local: string;
}

/** `GMT+05:30` → `+05:30`; `GMT` → `+00:00`. */
function utcOffset(date: Date, timeZone: string): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(date)
    .find((p) => p.type === 'timeZoneName')?.value;
  const offset = part?.replace('GMT', '') ?? '';
  return offset === '' ? '+00:00' : offset;
}

export function timeNow(timezone: string | undefined, now = new Date()): TimeNowResult {
  const timeZone = timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  let local: string;
  try {
    // sv-SE formats as `YYYY-MM-DD HH:mm:ss`, which reads the same everywhere.
    local = new Intl.DateTimeFormat('sv-SE', { timeZone, dateStyle: 'short', timeStyle: 'medium' }).format(now);
  } catch {
    throw new ToolArgumentError('timezone', `unknown IANA time zone "${timezone}"`);
  }
  return { iso: now.toISOString(), epochMs: now.getTime(), timezone: timeZone, utcOffset: utcOffset(now, timeZone), local };
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
