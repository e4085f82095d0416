/**
 * A prompt's messages as its server returned them: each with its role and its content block
 * shown by type (text as text, an image previewed, an embedded resource in the resource viewer,
 * a resource link by its URI; anything else as JSON). Untrusted text: hidden characters shown.
 */
import type { PromptMessage } from '../../../shared/resources';
import { visibleText } from '../../../shared/visibleText';
import { JsonBlock } from '../../ui/JsonBlock';
import { ContentPart } from '../resource-detail/ResourceContents';

type Block = { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown; uri?: unknown; name?: unknown; resource?: unknown };

export function PromptMessages({ messages }: { messages: readonly PromptMessage[] }) {
  return (
    <ol className="prompt-message-list" aria-label="Messages">
      {messages.map((message, index) => (
        <li key={index} className="prompt-message" data-role={message.role}>
          <p className="prompt-message__role">{message.role}</p>
          <MessageContent content={message.content} label={`Message ${index + 1} (${message.role})`} />
        </li>
      ))}
    </ol>
  );
}

function MessageContent({ content, label }: { content: unknown; label: string }) {
  const block = (typeof content === 'object' && content !== null ? content : {}) as Block;
  if (block.type === 'text' && typeof block.text === 'string') {
    return (
      <pre className="resource-part__text" tabIndex={0} aria-label={label}>
        {visibleText(block.text.toWellFormed(), { keepNewlines: true })}
      </pre>
    );
  }
  if (block.type === 'image' && typeof block.data === 'string' && typeof block.mimeType === 'string') {
    return <ContentPart part={{ uri: `${label}.image`, mimeType: block.mimeType, blob: block.data }} label={label} />;
  }
  if (block.type === 'resource' && typeof block.resource === 'object' && block.resource !== null) {
    return <ContentPart part={block.resource as { uri: string }} label={label} />;
  }
  if (block.type === 'resource_link' && typeof block.uri === 'string') {
    return (
      <p>
        A link to the resource <code>{block.uri}</code>
        {typeof block.name === 'string' ? ` (${block.name})` : ''}.
      </p>
    );
  }
  return <JsonBlock value={content} label={label} />;
}
