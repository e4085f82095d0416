/**
 * An MCP result as the operator reads it: each content block in order (text as text, images as
 * images, resource links and embedded resources with their URI), then `structuredContent` as
 * JSON. A failure's content (TOOL_ERROR, the server's `isError` result) is drawn the same way,
 * marked as the failure it is. The raw JSON stays available below it in Recent executions.
 */
import { CopyButton } from '../../ui/CopyButton';
import { formatJson } from '../../ui/JsonBlock';
import type { ContentBlock, McpResult } from './mcpContent';

const formatBytes = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);

export function ResultContent({ result, label }: { result: McpResult; label: string }) {
  const { blocks, structured, isError } = result;
  return (
    <section className={`result-content ${isError ? 'result-content--error' : ''}`} aria-label={`${label} ${isError ? 'error content' : 'content'}`}>
      {blocks.length === 0 && !structured && <p className="muted">The tool returned no content.</p>}
      {blocks.length > 0 && (
        <ol className="result-content__blocks">
          {blocks.map((block, index) => (
            <li key={index} className={`result-block result-block--${block.kind}`} data-block={block.kind}>
              <Block block={block} label={label} />
            </li>
          ))}
        </ol>
      )}
      {structured && (
        <div className="result-content__structured">
          <h4 className="subheading">Structured content</h4>
          <pre className="result-content__json" tabIndex={0} aria-label={`${label} structured content`} data-testid="structured-content">
            <code>{formatJson(structured.value)}</code>
          </pre>
        </div>
      )}
    </section>
  );
}

function Block({ block, label }: { block: ContentBlock; label: string }) {
  switch (block.kind) {
    case 'text':
      return <pre className="result-block__text">{block.text}</pre>;
    case 'image':
      return (
        <figure className="result-block__figure">
          <img src={block.src} alt={`Image returned by ${label}`} className="result-block__image" />
          <figcaption className="muted">
            {block.mimeType}, {formatBytes(block.bytes)}
          </figcaption>
        </figure>
      );
    case 'binary':
      return (
        <p className="result-block__binary">
          {block.what === 'blob' ? 'Binary resource' : block.what === 'audio' ? 'Audio' : 'Image'} <span className="muted">({block.mimeType || 'no type'}, {formatBytes(block.bytes)})</span>
          {block.note && <span className="muted"> — {block.note}</span>}
        </p>
      );
    case 'resource-link':
      return (
        <div className="result-block__resource">
          <p>
            <span className="badge badge--plain">resource link</span> <strong>{block.title ?? block.name}</strong>
            {block.mimeType && <span className="muted"> ({block.mimeType})</span>}
          </p>
          {block.description && <p className="muted">{block.description}</p>}
          <p className="result-block__uri">
            <code>{block.uri}</code> <CopyButton text={block.uri} label="Copy URI" />
          </p>
        </div>
      );
    case 'resource-text':
      return (
        <div className="result-block__resource">
          <p>
            <span className="badge badge--plain">embedded resource</span> <code>{block.uri}</code>
            {block.mimeType && <span className="muted"> ({block.mimeType})</span>}
          </p>
          <pre className="result-block__text">{block.text}</pre>
        </div>
      );
    case 'unknown':
      return (
        <div>
          <p className="muted">A content block this console does not know:</p>
          <pre className="result-content__json">
            <code>{formatJson(block.value)}</code>
          </pre>
        </div>
      );
  }
}
