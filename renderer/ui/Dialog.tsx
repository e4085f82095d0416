/**
 * A modal on the native <dialog>: the browser traps focus, moves it inside on open, and makes
 * the rest of the page inert. Escape asks the owner to close, so React state stays the truth.
 * The drawer variant slides in from the right edge and carries its own Close button.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Icon } from './Icon';

interface DialogProps {
  open: boolean;
  title: ReactNode;
  onClose(): void;
  children: ReactNode;
  /** Actions; omit when the body is a form with its own submit buttons. */
  footer?: ReactNode;
  className?: string;
  variant?: 'modal' | 'drawer';
}

export function Dialog({ open, title, onClose, children, footer, className = '', variant = 'modal' }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      const opener = document.activeElement as HTMLElement | null;
      dialog.showModal();
      // Give focus back to what opened the dialog, as the operator expects after Escape or Cancel.
      return () => {
        if (dialog.open) dialog.close();
        opener?.focus();
      };
    }
  }, [open]);

  return (
    <dialog
      ref={ref}
      className={`dialog dialog--${variant} ${className}`}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {open && (
        <div className="dialog__frame">
          <div className="dialog__header">
            <h2 id={titleId} className="dialog__title">
              {title}
            </h2>
            {variant === 'drawer' && (
              <button type="button" className="button button--small button--icon" onClick={onClose} aria-label="Close">
                <Icon name="close" />
              </button>
            )}
          </div>
          <div className="dialog__body">{children}</div>
          {footer && <div className="dialog__footer">{footer}</div>}
        </div>
      )}
    </dialog>
  );
}
