/**
 * The selected tool: its contract, and the one way the console lets the operator run it,
 * according to its state: Execute (one-click), nothing (view only or revoked), Review and run
 * (locked), or a disabled Execute that says why (its server unavailable, not runnable here, or
 * held for review because its server changed it since it was pinned).
 */
import { useEffect, useId, useRef, useState } from 'react';
import { useExecutions } from '../../state/executionsStore';
import { useConsoleUi } from '../../state/uiStore';
import { ConfirmationBadge, DeprecatedBadge, MutatingBadge, RiskBadge, toolStateLook } from '../../ui/badges';
import { ErrorBoundary } from '../../ui/ErrorBoundary';
import { Icon } from '../../ui/Icon';
import { JsonBlock } from '../../ui/JsonBlock';
import { callName, useExecuteTool, useToolRunning } from '../executions/useExecuteTool';
import { useGatewayReachable } from '../gateway/reachability';
import { CapabilityHeader } from '../registry/CapabilityHeader';
import { unavailabilityText } from '../registry/availability';
import { ownStateLook } from '../registry/StateBadge';
import type { ToolEntry } from '../registry/useRegistry';
import { HeldNotice } from '../pins/HeldNotice';
import { ReviewDialog } from './ReviewDialog';
import { checkArguments } from './argumentCheck';
import { hasArguments, ToolForm } from './ToolForm';
import { hasPolicyOrigin, ToolPolicy } from './ToolPolicy';

/** How long a new run is followed: its entry is redrawn when the gateway's record replaces the page's own. */
const FOLLOW_MS = 30_000;

const entryOf = (requestId: string) =>
  [...document.querySelectorAll<HTMLElement>('.execution-list [data-testid="request-id"]')]
    .find((element) => element.textContent === requestId)
    ?.closest<HTMLElement>('li.execution') ?? null;

/**
 * Brings a run this panel just started into view in Recent executions and focuses it: the result,
 * or while it runs its progress and Cancel call, would otherwise sit below the fold (issue 22).
 * Found by its requestId; the entry takes focus programmatically only (tabindex -1). The entry is
 * drawn anew when the gateway's record of the run replaces the page's own, so focus follows it
 * there, unless the operator has moved focus elsewhere meanwhile.
 */
function useFollowRun(requestId: string | null): void {
  useEffect(() => {
    if (requestId === null) return;
    let focused: HTMLElement | null = null;
    const follow = () => {
      if (focused?.isConnected) return;
      // Focus went elsewhere (the operator moved on): leave it there.
      const active = document.activeElement;
      if (focused && active && active !== document.body) return stop();
      const entry = entryOf(requestId);
      if (!entry) return;
      entry.tabIndex = -1;
      if (!focused) entry.scrollIntoView({ block: 'start' });
      entry.focus({ preventScroll: focused !== null });
      focused = entry;
    };
    const observer = new MutationObserver(follow);
    // A frame later: closing the review dialog gives focus back to its opener first.
    const frame = requestAnimationFrame(() => {
      follow();
      observer.observe(document.body, { childList: true, subtree: true });
    });
    const timer = setTimeout(() => stop(), FOLLOW_MS);
    function stop() {
      observer.disconnect();
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    }
    return stop;
  }, [requestId]);
}

export function ToolDetail({ entry }: { entry: ToolEntry }) {
  const { contract: tool, state } = entry;
  const [review, setReview] = useState<Record<string, unknown> | null>(null);
  const execute = useExecuteTool();
  const name = callName(tool);
  const running = useToolRunning(name);
  // No call leaves while the gateway is known to be unreachable; the banner above says so.
  const reachable = useGatewayReachable();
  const openSettings = useConsoleUi((ui) => ui.setSettingsOpen);
  const openPanel = useConsoleUi((ui) => ui.openPanel);
  const unavailableId = useId();
  const notRunnableId = useId();
  const heldId = useId();
  const section = useRef<HTMLElement>(null);
  // The run this panel started last, followed into Recent executions and announced.
  const [followed, setFollowed] = useState<{ requestId: string; tool: string } | null>(null);
  useFollowRun(followed?.requestId ?? null);

  // When the layout is stacked (below the 960 px breakpoint in layout.css) the panel sits under
  // the whole list; bring it into view when a tool is chosen, or choosing seems to do nothing.
  useEffect(() => {
    if (window.matchMedia('(max-width: 959px)').matches) section.current?.scrollIntoView({ block: 'start' });
  }, []);

  const run = (args: Record<string, unknown>, confirmed: boolean) => {
    void execute(name, args, { confirmed });
    // The call is recorded, newest first, before its request leaves (useExecuteTool).
    const newest = useExecutions.getState().executions[0];
    if (newest?.tool === name) setFollowed({ requestId: newest.requestId, tool: name });
  };

  // ToolForm hands on only arguments the page found valid (argumentCheck.ts).
  const submit = (args: Record<string, unknown>) => {
    if (!reachable) return;
    // One call at a time per tool, so a double press cannot run a mutating tool twice.
    if (state === 'executable' && !running) run(args, false);
    if (state === 'locked') setReview(args);
  };
  const runnable = state === 'executable' || state === 'locked';

  return (
    <section ref={section} className="tool-detail" aria-labelledby="tool-detail-heading" data-state={state}>
      <CapabilityHeader
        entry={entry}
        headingId="tool-detail-heading"
        badges={
          <>
            <RiskBadge risk={tool.riskLevel} />
            <ConfirmationBadge needConfirm={tool.needConfirm} />
            {tool.mutating && <MutatingBadge />}
            {tool.deprecated && <DeprecatedBadge />}
          </>
        }
      />
      <p className="tool-detail__description">{tool.description}</p>
      {tool.deprecated && (
        <p className="notice notice--deprecated">
          <Icon name="alert" /> Deprecated by its provider: it still runs, but prefer another tool.
        </p>
      )}

      {state === 'not-runnable' && (
        <div className="notice notice--not-runnable" id={notRunnableId} role="status">
          <Icon name={ownStateLook['not-runnable'].icon} />
          <p>
            Not runnable here: {tool.notRunnableReason ?? 'Capstan cannot run this tool'}. It stays listed so you can see it, but every call (from
            here, the CLI or an agent) is refused with <code>TOOL_NOT_RUNNABLE</code>, and agents cannot load it.
          </p>
        </div>
      )}
      {state === 'held' && entry.hold && <HeldNotice capabilityId={entry.id} hold={entry.hold} refused="every call" id={heldId} />}
      {state === 'unavailable' && entry.unavailable && (
        <div className="notice notice--unavailable" id={unavailableId} role="status">
          <Icon name={ownStateLook.unavailable.icon} />
          <p>
            {unavailabilityText(entry.unavailable)} Its tools stay listed, but calls are refused with <code>PROVIDER_UNAVAILABLE</code> until it is
            ready again.{' '}
            <button type="button" className="link-button" onClick={() => openPanel('providers')}>
              Open Providers
            </button>
          </p>
        </div>
      )}

      {state === 'read-only' && (
        <div className={`notice notice--${state}`}>
          <Icon name={toolStateLook[state].icon} />
          <p>
            Not one of your one-click tools — add it in Settings to run it here.{' '}
            <button type="button" className="link-button" onClick={() => openSettings(true)}>
              Open Settings
            </button>
          </p>
        </div>
      )}
      {state === 'revoked' && (
        <div className="notice notice--revoked">
          <Icon name={ownStateLook.revoked.icon} />
          <p>
            Revoked: the gateway refuses this tool everywhere (console, tasks, models) until it is restored. Restore it from{' '}
            <strong>Inspect</strong>.
          </p>
        </div>
      )}
      {state === 'locked' && (
        <div className={`notice notice--${state}`}>
          <Icon name={toolStateLook[state].icon} />
          <p>This tool needs confirmation for every call. Fill in the arguments, then review the exact call before it runs.</p>
        </div>
      )}

      <h3 className="section-heading">Arguments</h3>
      {!hasArguments(tool.inputSchema) && <p className="muted">This tool takes no arguments.</p>}
      <ErrorBoundary what="This tool's form could not be drawn">
        <ToolForm capabilityId={tool.id} schema={tool.inputSchema} disabled={!runnable} onSubmit={submit}>
          {(state === 'unavailable' || state === 'not-runnable' || state === 'held') && (
            <div className="tool-detail__actions">
              <button
                type="submit"
                className="button button--primary"
                disabled
                aria-describedby={state === 'not-runnable' ? notRunnableId : state === 'held' ? heldId : unavailableId}
                title={
                  state === 'not-runnable'
                    ? `Not runnable here: ${tool.notRunnableReason ?? 'Capstan cannot run this tool'}`
                    : state === 'held'
                      ? 'Held for review: accept the change before it runs'
                      : undefined
                }
              >
                <Icon name="play" />
                Execute
              </button>
            </div>
          )}
          {runnable && (
            <div className="tool-detail__actions">
              {/* aria-disabled rather than disabled: a disabled button would drop keyboard focus mid-run. */}
              <button
                type="submit"
                className={`button button--primary ${state === 'locked' ? 'button--warning' : ''}`}
                aria-disabled={(state === 'executable' && running) || !reachable}
                title={reachable ? undefined : 'The gateway cannot be reached: calls are off until it answers'}
              >
                <Icon name={state === 'locked' ? 'lock' : 'play'} />
                {state === 'locked' ? 'Review and run' : running ? 'Running…' : 'Execute'}
              </button>
            </div>
          )}
        </ToolForm>
      </ErrorBoundary>

      {hasPolicyOrigin(tool) && <ToolPolicy tool={tool} />}

      <details className="contract">
        <summary>Input schema</summary>
        <JsonBlock value={tool.inputSchema} label={`${tool.name} input schema`} />
      </details>
      {tool.outputSchema && (
        <details className="contract">
          <summary>Output schema</summary>
          <JsonBlock value={tool.outputSchema} label={`${tool.name} output schema`} />
        </details>
      )}
      <details className="contract">
        <summary>Return example</summary>
        <JsonBlock value={tool.returnExample} label={`${tool.name} return example`} />
      </details>

      {/* Says where the run went; Recent executions announces how it ended. */}
      <p className="visually-hidden" aria-live="polite" data-testid="run-announcement">
        {followed ? `Running ${followed.tool}: its progress, Cancel call and result are in Recent executions, focused.` : ''}
      </p>

      <ReviewDialog
        tool={tool}
        args={review}
        // Checked again against the schema as it is now: the catalog may have changed it since Review.
        problems={review ? checkArguments(tool.inputSchema, review) : []}
        onCancel={() => setReview(null)}
        onConfirm={(args) => {
          setReview(null);
          if (checkArguments(tool.inputSchema, args).length > 0) return;
          run(args, true);
        }}
      />
    </section>
  );
}
