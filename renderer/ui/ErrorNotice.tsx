/** A failed action, with the gateway's error code and message, next to what failed. */
import type { ErrorBody } from '../../shared/api';
import { Icon } from './Icon';

/** The message without the code the gateway already put in front of it. */
const messageOf = (error: ErrorBody) => (error.message.startsWith(error.code) ? error.message.slice(error.code.length).replace(/^:\s*/, '') : error.message);

export function ErrorNotice({ what, error }: { what: string; error: ErrorBody }) {
  return (
    <div className="notice notice--error" role="alert" data-error-code={error.code}>
      <Icon name="alert" />
      <p>
        {what}. <code className="error-code">{error.code}</code>: {messageOf(error)}
      </p>
    </div>
  );
}
