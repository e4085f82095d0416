/**
 * What the host feeds its telemetry besides operations (tracing.ts): the ledger's durable entries
 * as the audit log stream (streamLedger, from the ledger's opening), approval waits and ledger
 * flushes as histograms, the gauges (catalog size, provider connections, approvals waiting), and,
 * in Diagnostics, what export has cost: spans and records dropped by a full queue or refused by
 * an unreachable backend.
 */
import type { Catalog } from '../catalog/catalog';
import type { Ledger } from '../runtime/ledger';
import type { Telemetry } from '../telemetry/telemetry';
import type { Approvals } from './approvals';

/** How often Diagnostics is brought up to date with export's losses. */
export const TELEMETRY_DIAGNOSTICS_MS = 5_000;
const DIAGNOSTICS_SOURCE = 'telemetry';

/**
 * The ledger's entries as the audit log stream, in seq order, each once it is durable (the ledger
 * announces nothing a crash could take back), and its flushes as a histogram. Started as soon as
 * the ledger opens, before anything can append (restart recovery, a server's pins), so the stream
 * holds every entry this process wrote.
 */
export function streamLedger(telemetry: Telemetry, ledger: Ledger): () => void {
  if (!telemetry.enabled) return () => undefined;
  const stopEntries = ledger.onAppend((entry) => telemetry.ledgerEntry(entry));
  const stopFlushes = ledger.onFlushed((seconds) => telemetry.metrics.ledgerFlush.record(seconds));
  return () => {
    stopEntries();
    stopFlushes();
  };
}

export function feedTelemetry({ telemetry, ledger, catalog, approvals }: { telemetry: Telemetry; ledger: Ledger; catalog: Catalog; approvals: Approvals }): () => void {
  if (!telemetry.enabled) return () => undefined;
  const { metrics } = telemetry;
  const stopWaits = ledger.onAppend((entry) => {
    if (entry.kind === 'approval_decided' && typeof entry.details.waitedMs === 'number') {
      metrics.approvalWait.record(entry.details.waitedMs / 1000, { 'capstan.approval.decision': String(entry.details.decision) });
    }
  });
  telemetry.observe({
    catalogSize: () =>
      catalog.providers().flatMap((provider) =>
        (['tools', 'skills', 'resources', 'prompts'] as const).flatMap((kind) => {
          const count = provider[kind];
          return typeof count === 'number' && count > 0 ? [{ provider: provider.name, kind, count }] : [];
        }),
      ),
    providerStates: () => catalog.providers().map((provider) => ({ provider: provider.name, state: provider.status?.state ?? (provider.enabled ? 'ready' : 'disabled') })),
    approvalsPending: () => approvals.list().pending.length,
  });

  let reported = '';
  const timer = setInterval(() => {
    const reasons = lossesOf(telemetry);
    const key = reasons.join('\n');
    if (key !== reported) catalog.setGatewayDiagnostics(DIAGNOSTICS_SOURCE, reasons);
    reported = key;
  }, TELEMETRY_DIAGNOSTICS_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    stopWaits();
  };
}

/** One line per signal that lost anything, saying where it was going; calls were never held up. */
export function lossesOf(telemetry: Telemetry): string[] {
  const names = { traces: 'spans', logs: 'ledger log records', metrics: 'metric exports' } as const;
  return Object.entries(telemetry.status().signals).flatMap(([signal, counts]) => {
    if (!counts || (counts.dropped === 0 && counts.failed === 0)) return [];
    const what = names[signal as keyof typeof names];
    const parts = [counts.dropped > 0 ? `${counts.dropped} dropped (queue full)` : '', counts.failed > 0 ? `${counts.failed} not accepted by ${counts.endpoint}` : ''].filter(Boolean);
    return [`Telemetry: ${what}: ${parts.join(', ')}; ${counts.sent} sent. Calls are not slowed; the ledger keeps every entry.`];
  });
}
