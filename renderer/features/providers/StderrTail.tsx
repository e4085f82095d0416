/**
 * The last lines a server wrote to stderr, newest at the bottom. The block is bounded (it
 * scrolls, by keyboard too) and keeps the newest line in view as lines arrive, unless the
 * operator has scrolled up to read older ones.
 */
import { useLayoutEffect, useRef } from 'react';

export function StderrTail({ name, lines, open }: { name: string; lines: readonly string[]; open: boolean }) {
  const block = useRef<HTMLPreElement>(null);
  const text = lines.join('\n');
  // Whether the operator was reading the end when the text changed: then the end stays in view.
  const following = useRef(true);
  useLayoutEffect(() => {
    const pre = block.current;
    if (pre && following.current) pre.scrollTop = pre.scrollHeight;
  }, [text, open]);
  return (
    <details className="provider-status__stderr" open={open || undefined}>
      <summary>
        stderr <span className="muted">(last {lines.length} line{lines.length === 1 ? '' : 's'})</span>
      </summary>
      <pre
        ref={block}
        className="stderr-tail"
        tabIndex={0}
        aria-label={`stderr of ${name}`}
        data-testid="stderr"
        onScroll={(event) => {
          const pre = event.currentTarget;
          following.current = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 4;
        }}
      >
        <code>{text}</code>
      </pre>
    </details>
  );
}
