/**
 * The `/` shortcut: from anywhere on the page, it moves focus to the capability search, as on
 * GitHub and in most consoles. It leaves the key alone where `/` is text (an input, a text area,
 * a select, an editable region), when a modifier is held, and while a dialog is open, whose
 * content is the only part of the page the operator is working in.
 */
import { useEffect, type RefObject } from 'react';

const TYPING = 'input, textarea, select, [contenteditable]:not([contenteditable="false"])';

export function useSlashToSearch(search: RefObject<HTMLInputElement | null>): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== '/' || event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target instanceof Element ? event.target : null;
      if (target?.closest(TYPING) || document.querySelector('dialog[open]')) return;
      event.preventDefault();
      search.current?.focus();
      search.current?.select();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [search]);
}
