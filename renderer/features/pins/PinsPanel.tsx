/**
 * Held for review (pinned contracts, shared/pins.ts): the MCP tools whose server changed what
 * they say since they were pinned, or that appeared later. Each is reviewed as a side-by-side
 * diff of its descriptor as pinned and as the server sends it now, one changed part at a time,
 * with hidden characters (tag, zero-width, bidi) and lookalike letters in names made visible, and
 * a plain note of the findings (text addressed to a model). Accept binds the acceptance to the
 * descriptor shown (its hash): one that changes again meanwhile is shown again, not accepted.
 * Live: catalog events and the pin ledger entries read the held tools and the diff again.
 */
import { useState } from 'react';
import { changedParts, confusables, hiddenTagText, type PinDiff, type PinHold } from '../../../shared/pins';
import { toErrorBody } from '../../api/errors';
import { useAcceptPin, usePinDiff } from '../../api/hooks';
import { useConsoleUi } from '../../state/uiStore';
import { Dialog } from '../../ui/Dialog';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { dateClockTime } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { heldWhat } from './heldWords';
import { RevealedText } from './RevealedText';
import './pins.css';

export function PinsPanel({ held }: { held: readonly PinHold[] }) {
  const open = useConsoleUi((ui) => ui.panel === 'pins');
  const reviewing = useConsoleUi((ui) => ui.reviewingPin);
  const openPanel = useConsoleUi((ui) => ui.openPanel);
  const reviewPin = useConsoleUi((ui) => ui.reviewPin);
  const [accepted, setAccepted] = useState<string | null>(null);
  const close = () => {
    setAccepted(null);
    openPanel(null);
  };
  return (
    <Dialog open={open} onClose={close} variant="drawer" className="pins-panel" title={reviewing ? <>Review <code>{reviewing}</code></> : 'Held for review'}>
      {reviewing ? (
        <PinReview
          id={reviewing}
          onBack={() => reviewPin(null)}
          onKeep={close}
          onAccepted={(id) => {
            setAccepted(id);
            reviewPin(null);
          }}
        />
      ) : (
        <HeldList held={held} accepted={accepted} onReview={(id) => reviewPin(id)} />
      )}
    </Dialog>
  );
}

function HeldList({ held, accepted, onReview }: { held: readonly PinHold[]; accepted: string | null; onReview(id: string): void }) {
  return (
    <>
      <p className="muted" aria-live="polite">
        {accepted && (
          <>
            Accepted <code>{accepted}</code>: it runs again.{' '}
          </>
        )}
        {held.length === 0
          ? 'Nothing is held: every MCP tool is as it was pinned.'
          : `${held.length} ${held.length === 1 ? 'tool is' : 'tools are'} held: ${held.length === 1 ? 'its server' : 'their servers'} changed what ${held.length === 1 ? 'it says' : 'they say'}, or added ${held.length === 1 ? 'it' : 'them'}, since the server was pinned. Until accepted, calls are refused with CONTRACT_CHANGED and no task sees ${held.length === 1 ? 'it' : 'them'}.`}
      </p>
      {held.length > 0 && (
        <ul className="pins-list">
          {held.map((hold) => (
            <li key={hold.id} className="pins-list__item">
              <div>
                <code className="pins-list__id">{hold.id}</code>
                <p className="muted">
                  {heldWhat(hold)}; held since {dateClockTime(hold.since)}
                  {hold.findings.length > 0 && `; ${hold.findings.length} ${hold.findings.length === 1 ? 'finding' : 'findings'}`}
                </p>
              </div>
              <button type="button" className="button button--small" onClick={() => onReview(hold.id)} aria-label={`Review ${hold.id}`}>
                Review
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

interface PinReviewProps {
  id: string;
  onBack(): void;
  onKeep(): void;
  onAccepted(id: string): void;
}

function PinReview({ id, onBack, onKeep, onAccepted }: PinReviewProps) {
  const diff = usePinDiff(id);
  const accept = useAcceptPin();
  const back = (
    <button type="button" className="link-button" onClick={onBack}>
      All held tools
    </button>
  );
  if (diff.isPending) {
    return (
      <p className="loading" role="status">
        <Icon name="spinner" className="spin" /> Reading the descriptors…
      </p>
    );
  }
  if (diff.error) {
    const error = toErrorBody(diff.error);
    return (
      <>
        {error.code === 'CAPABILITY_NOT_FOUND' ? (
          <p role="status">
            <code>{id}</code> is no longer held: it was accepted, or its server no longer offers it.
          </p>
        ) : (
          <ErrorNotice what="The diff could not be read" error={error} />
        )}
        <p>{back}</p>
      </>
    );
  }
  const { hold } = diff.data;
  return (
    <div className="pin-review">
      <p className="pin-review__summary">
        Held: {heldWhat(hold)}, since {dateClockTime(hold.since)}. {back}
      </p>
      <Findings diff={diff.data} />
      <DiffParts diff={diff.data} />
      {accept.error && <ErrorNotice what={`${id} was not accepted`} error={toErrorBody(accept.error)} />}
      <div className="pin-review__actions">
        <button
          type="button"
          className="button button--primary"
          aria-disabled={accept.isPending}
          onClick={() => {
            if (accept.isPending) return;
            accept.mutate({ id, hash: hold.currentHash }, { onSuccess: () => onAccepted(id) });
          }}
        >
          <Icon name="check" />
          Accept
        </button>
        <button type="button" className="button" onClick={onKeep}>
          Keep held
        </button>
        <p className="muted pin-review__hash">
          Accepts this descriptor only (<code title={hold.currentHash}>{hold.currentHash.slice(0, 12)}…</code>): if the server changes it again, it is
          held again.
        </p>
      </div>
    </div>
  );
}

const HIDDEN = 'hidden character ';

/** The plain note: what the review should look at, in words, before the diff. */
function Findings({ diff }: { diff: PinDiff }) {
  const { hold, current } = diff;
  const name = String(current.name ?? hold.name);
  const lookalikes = confusables(name);
  const spelled = hiddenTagText(JSON.stringify(current));
  const none = hold.findings.length === 0 && lookalikes.length === 0;
  // descriptorFindings' words: `hidden character U+XXXX name` for each hidden one, the rest text addressed to a model.
  const hiddenOnes = hold.findings.filter((finding) => finding.startsWith(HIDDEN)).map((finding) => finding.slice(HIDDEN.length));
  const addressed = hold.findings.filter((finding) => !finding.startsWith(HIDDEN));
  return (
    <section className={`notice ${none ? 'notice--read-only' : 'notice--held'} pin-findings`} aria-labelledby="pin-findings-heading">
      <Icon name={none ? 'check' : 'alert'} />
      <div>
        <h3 id="pin-findings-heading" className="pin-findings__heading">
          {none ? 'Nothing hidden found' : 'Look at this before accepting'}
        </h3>
        {none ? (
          <p>No hidden characters, lookalike letters or text addressed to a model in the new descriptor. Read the diff all the same.</p>
        ) : (
          <ul>
            {lookalikes.length > 0 && (
              <li>
                The name <code>{name}</code> has letters from another script that look like ASCII ones:{' '}
                {lookalikes.map((found) => `${found.codePoint} looks like ${found.looksLike}`).join(', ')}.
              </li>
            )}
            {hiddenOnes.length > 0 && <li>Characters a model reads and you would not see: {hiddenOnes.join(', ')}.</li>}
            {addressed.map((finding) => (
              <li key={finding}>The descriptor {finding}.</li>
            ))}
            {spelled.map((text) => (
              <li key={text}>
                Tag characters spell, unseen: <q>{text}</q>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

/** Each changed part, pinned on the left and now on the right, lines only on one side marked. */
function DiffParts({ diff }: { diff: PinDiff }) {
  const { pinned, current } = diff;
  return (
    <>
      {changedParts(pinned, current).map((part) => {
        const before = pinned === null ? null : lines(pinned[part]);
        const after = lines(current[part]);
        const lookalikes = part === 'name' || part === 'title';
        return (
          <section key={part} className="pin-diff" aria-label={`${part}: pinned and now`}>
            <h3 className="pin-diff__part">
              <code>{part}</code>
            </h3>
            <div className="pin-diff__columns">
              <DiffColumn label="Pinned" lines={before} other={after} sign="−" lookalikes={lookalikes} />
              <DiffColumn label="Now" lines={after} other={before ?? []} sign="+" lookalikes={lookalikes} />
            </div>
          </section>
        );
      })}
    </>
  );
}

const lines = (value: unknown): string[] => (value === undefined ? [] : (JSON.stringify(value, null, 2) ?? '').split('\n'));

function DiffColumn({ label, lines: shown, other, sign, lookalikes }: { label: string; lines: string[] | null; other: string[]; sign: string; lookalikes: boolean }) {
  const elsewhere = new Set(other);
  return (
    <figure className="pin-diff__column">
      <figcaption className="pin-diff__label">{label}</figcaption>
      {shown === null ? (
        <p className="muted">Not pinned: a new tool.</p>
      ) : shown.length === 0 ? (
        <p className="muted">Absent.</p>
      ) : (
        <pre className="pin-diff__text" tabIndex={0}>
          {shown.map((line, index) => {
            const changed = !elsewhere.has(line);
            return (
              <span key={index} className={`pin-diff__line ${changed ? `pin-diff__line--${sign === '+' ? 'added' : 'removed'}` : ''}`}>
                <span className="pin-diff__sign" aria-hidden="true">
                  {changed ? sign : ' '}
                </span>
                <RevealedText text={line} lookalikes={lookalikes} />
                {'\n'}
              </span>
            );
          })}
        </pre>
      )}
    </figure>
  );
}
