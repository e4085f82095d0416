/**
 * What a resource read returned, part by part, each in the viewer its MIME type calls for
 * (contentView.ts): JSON pretty-printed, text as text (untrusted: hidden characters shown), an
 * image previewed, other bytes offered as a download. Also used for a prompt's embedded resources.
 */
import { useEffect, useMemo } from 'react';
import type { ResourceContents as Part } from '../../../shared/resources';
import { visibleText } from '../../../shared/visibleText';
import { Icon } from '../../ui/Icon';
import { byteSize, contentView, shownText, SHOW_MAX_CHARS } from './contentView';

export function ResourceContents({ contents, label }: { contents: readonly Part[]; label: string }) {
  if (contents.length === 0) return <p className="muted">The server returned no contents.</p>;
  return (
    <div className="resource-contents">
      {contents.map((part, index) => (
        <ContentPart key={`${part.uri}-${index}`} part={part} label={contents.length > 1 ? `${label}, part ${index + 1}` : label} />
      ))}
    </div>
  );
}

export function ContentPart({ part, label }: { part: Part; label: string }) {
  const view = contentView(part);
  return (
    <figure className="resource-part" data-view={view.kind}>
      <figcaption className="resource-part__caption">
        <code className="resource-part__uri">{part.uri}</code>
        <span className="muted">
          {part.mimeType ?? 'no MIME type'} · {view.kind === 'json' ? 'JSON' : view.kind === 'text' ? 'text' : byteSize(view.bytes)}
        </span>
        <DownloadLink part={part} />
      </figcaption>
      {view.kind === 'image' ? (
        <img className="resource-part__image" src={view.src} alt={`${label}: an image of ${byteSize(view.bytes)} (${part.mimeType})`} />
      ) : view.kind === 'binary' ? (
        <p className="muted">Binary content ({byteSize(view.bytes)}): the console does not show it; download it to open it with another program.</p>
      ) : (
        <ShownText text={view.text} label={label} />
      )}
    </figure>
  );
}

function ShownText({ text, label }: { text: string; label: string }) {
  const shown = shownText(text);
  return (
    <>
      {shown.cut && (
        <p className="notice notice--read-only" role="note">
          <Icon name="alert" />
          Showing the first {SHOW_MAX_CHARS.toLocaleString()} of {text.length.toLocaleString()} characters; download it for the rest.
        </p>
      )}
      {/* Focusable, so it scrolls by keyboard; control and bidirectional characters are shown, not obeyed. */}
      <pre className="resource-part__text" tabIndex={0} aria-label={label}>
        {visibleText(shown.text.toWellFormed(), { keepNewlines: true })}
      </pre>
    </>
  );
}

/** The part as a file, named after the last segment of its URI. */
function DownloadLink({ part }: { part: Part }) {
  const url = useMemo(() => {
    const bytes = part.blob !== undefined ? Uint8Array.from(atob(part.blob), (char) => char.charCodeAt(0)) : new TextEncoder().encode(part.text ?? '');
    // Never the server's type: a text/html blob opened as a page would run its scripts in the console's origin.
    return URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  }, [part]);
  useEffect(() => () => URL.revokeObjectURL(url), [url]);
  const name = decodeURIComponent(part.uri.split(/[/?#]/).filter(Boolean).at(-1) ?? 'resource').replace(/[^\w.-]+/g, '_') || 'resource';
  return (
    <a className="link-button" href={url} download={name}>
      <Icon name="download" /> Download
    </a>
  );
}
