/** Copies text to the clipboard, falling back to a selection copy where the Clipboard API is refused. */
import { useEffect, useState } from 'react';
import { Icon } from './Icon';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'visually-hidden';
    document.body.append(area);
    area.select();
    // execCommand is deprecated, but it is the only fallback where the async clipboard is blocked.
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [status, setStatus] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (status === 'idle') return;
    const timer = setTimeout(() => setStatus('idle'), 1500);
    return () => clearTimeout(timer);
  }, [status]);

  return (
    <button type="button" className="button button--small" onClick={async () => setStatus((await copyText(text)) ? 'copied' : 'failed')}>
      <Icon name={status === 'copied' ? 'check' : 'copy'} />
      <span aria-live="polite">{status === 'copied' ? 'Copied' : status === 'failed' ? 'Copy failed' : label}</span>
    </button>
  );
}
