/**
 * One line saying what a ledger entry records, from its kind-specific details, as the console's
 * ledger grid shows it and `capstan ledger tail` prints it; and how the entry went. Digests are
 * shortened: they are evidence to compare, not to read; the console's drawer and `--json` give
 * them whole. Pure, so the renderer and the CLI share it.
 */
import type { LedgerEntry } from './ledger';

/** As renderer/ui/format.ts's shortHash, which shared/ cannot import (formatDuration is this file's, and the renderer's too). */
const shortHash = (hash: string, length: number) => (hash.length > length ? `${hash.slice(0, length)}…` : hash);
/** A call's duration as the console and the CLI write it: a tenth under 10 ms, whole milliseconds above. */
export const formatDuration = (ms: number) => `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
const digest = (label: string, value: unknown) => (typeof value === 'string' ? `${label} ${shortHash(value, 8)}` : '');
const join = (...parts: string[]) => parts.filter((part) => part !== '').join(' · ');
const seconds = (ms: unknown) => (typeof ms === 'number' ? `${Math.round(ms / 100) / 10} s` : '?');
/** A call answered with a confirmation challenge (428) was not refused; entries from before it had a status of its own say `refused` with the code. */
const confirmationRequest = (d: LedgerEntry['details']) => d.status === 'confirmation_requested' || (d.status === 'refused' && d.code === 'CONFIRMATION_REQUIRED');

export function entrySummary({ kind, details: d }: LedgerEntry): string {
  switch (kind) {
    case 'call_started':
      if (d.confirmationRequested) return 'asked for a confirmation; did not run';
      return d.refused ? 'refused before it ran' : join(d.mutating ? 'mutating' : 'read', digest('args', d.argumentsDigest));
    case 'call_finished':
      if (confirmationRequest(d)) return join('confirmation requested', text(d.code));
      return join(text(d.status), text(d.code), typeof d.durationMs === 'number' ? formatDuration(d.durationMs) : '', digest('result', d.resultDigest));
    case 'task_transition':
      return join(`${text(d.from) || 'new'} → ${text(d.to)}`, d.title ? `“${text(d.title)}”` : '', text(d.reason));
    case 'cancellation':
      return join(text(d.reason), typeof d.callsInFlight === 'number' ? `${d.callsInFlight} in flight` : '');
    case 'acknowledgement':
      return join(`acknowledged ${text(d.acknowledged)}`, typeof d.remainingUnknown === 'number' ? `${d.remainingUnknown} still unknown` : '');
    case 'grant_reduced':
      return `${text(d.pattern)} lowered to ${text(d.authority)}`;
    case 'confirmation':
      if (d.approvalId) return join(`approved by the operator after ${seconds(d.waitedMs)}`, digest('args', d.argumentsDigest));
      if (d.confirmedBy === 'dialog') return join('confirmed in the desktop app', digest('args', d.argumentsDigest));
      return join(digest('challenge', d.challengeId), digest('args', d.argumentsDigest));
    case 'approval_requested':
      return join(`${text(d.agent)} asks the operator`, digest('args', d.argumentsDigest));
    case 'approval_decided':
      return join(text(d.decision), `after ${seconds(d.waitedMs)}`, text(d.reason), d.noteDigest ? 'with a note' : '');
    case 'steer':
      return join('operator steered', digest('text', d.textDigest));
    case 'pin_set':
      return `${typeof d.tools === 'number' ? d.tools : '?'} tools pinned as the server first listed them`;
    case 'contract_held':
      return join(`held: ${text(d.hold)}`, Array.isArray(d.changed) ? d.changed.join(', ') : '', digest('now', d.currentHash));
    case 'pin_accepted':
      return join('accepted by the operator', digest('pin', d.hash));
    case 'server_asked':
      return join(`${text(d.server)} asks the operator (${text(d.ask)}${d.mode ? ` ${text(d.mode)}` : ''})`, text(d.caller) ? `during ${text(d.caller)}'s call` : '', digest('message', d.messageDigest));
    case 'server_answered':
      return join(text(d.answer), `after ${seconds(d.waitedMs)}`, text(d.reason), digest('content', d.contentDigest));
  }
}

/** How the entry went, for its row's edge: a call's status, or the state a transition reached. */
export function entryTone({ kind, details }: LedgerEntry): 'ok' | 'bad' | 'warn' | 'plain' {
  if (kind === 'call_finished' && confirmationRequest(details)) return 'plain';
  const status = kind === 'call_finished' ? details.status : kind === 'task_transition' ? details.to : undefined;
  if (status === 'ok' || status === 'succeeded') return 'ok';
  if (status === 'error' || status === 'failed' || status === 'outcome_unknown') return 'bad';
  if (kind === 'approval_decided') return details.decision === 'approved' ? 'ok' : 'warn';
  if (kind === 'server_answered') return details.answer === 'accepted' ? 'ok' : 'warn';
  if (status === 'refused' || status === 'cancelled' || status === 'superseded' || kind === 'cancellation') return 'warn';
  return 'plain';
}
