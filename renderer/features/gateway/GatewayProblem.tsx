/** What to tell the operator when the console cannot get the registry from its gateway. */
import { ApiError } from '../../api/transport';
import { Icon } from '../../ui/Icon';

export function GatewayProblem({ error, onRetry, retrying }: { error: Error; onRetry(): void; retrying: boolean }) {
  const unauthorized = error instanceof ApiError && error.code === 'UNAUTHORIZED';
  return (
    <div className="gateway-problem" role="alert">
      <Icon name={unauthorized ? 'lock' : 'alert'} className="gateway-problem__icon" />
      {unauthorized ? (
        <>
          <h2>This console is not signed in to the gateway</h2>
          <p>
            The gateway refused this page&apos;s token (UNAUTHORIZED). Open the console URL that <code>capstan serve</code> printed — the
            one that ends in <code>#token=…</code> — in this browser.
          </p>
        </>
      ) : (
        <>
          <h2>Cannot reach the Capstan gateway</h2>
          <p>{error.message}</p>
          <p className="muted">
            If you started it with <code>capstan serve</code>, check that it is still running, then retry.
          </p>
        </>
      )}
      {!unauthorized && (
        <button type="button" className="button button--primary" onClick={onRetry} disabled={retrying}>
          {retrying ? 'Retrying…' : 'Retry'}
        </button>
      )}
    </div>
  );
}
