/**
 * How a call ended, as its `call_finished` ledger entry says: one label, icon and tone shared by
 * every view that shows a call's outcome (an approval's decision, the Agent calls view).
 */
import type { LedgerEntry } from '../../../shared/ledger';
import { formatDuration } from '../../ui/format';
import type { IconName } from '../../ui/Icon';

export interface OutcomeLook {
  label: string;
  icon: IconName;
  tone: 'ok' | 'failed' | 'neutral';
}

export function outcomeLook(finished: LedgerEntry): OutcomeLook {
  const code = typeof finished.details.code === 'string' ? finished.details.code : null;
  const duration = typeof finished.details.durationMs === 'number' ? ` in ${formatDuration(finished.details.durationMs)}` : '';
  switch (finished.details.status) {
    case 'ok':
      return { label: `Ran ok${duration}`, icon: 'check', tone: 'ok' };
    case 'cancelled':
      return { label: 'Cancelled', icon: 'stop', tone: 'neutral' };
    case 'outcome_unknown':
      return { label: `Outcome unknown${code ? `: ${code}` : ''}`, icon: 'alert', tone: 'failed' };
    case 'refused':
      return { label: `Refused${code ? `: ${code}` : ''}`, icon: 'ban', tone: 'failed' };
    default:
      return { label: `Failed${code ? `: ${code}` : ''}`, icon: 'alert', tone: 'failed' };
  }
}
