/**
 * What to tell the operator when the console cannot get the registry from its gateway: a
 * refused token, a gateway the page cannot reach, or a gateway that answered with an error.
 * Each needs a different next step, so each says its own.
 */
import type { ErrorBody } from '../../../shared/api';
import { useTransport } from '../../api/hooks';
import { errorText } from '../../ui/errorText';
import { Icon } from '../../ui/Icon';

export function GatewayProblem({ problem, onRetry, retrying }: { problem: ErrorBody; onRetry(): void; retrying: boolean }) {
  const transport = useTransport();
  if (problem.code === 'UNAUTHORIZED') {
    return (
      <div className="gateway-problem" role="alert" data-error-code={problem.code}>
        <Icon name="lock" className="gateway-problem__icon" />
        <h2>This console is not signed in to the gateway</h2>
        <p>
          The gateway refused this page&apos;s token (UNAUTHORIZED). Open the console URL that <code>capstan serve</code> printed — the one
          that ends in <code>#token=…</code> — in this browser.
        </p>
      </div>
    );
  }
  const unreachable = problem.code === 'GATEWAY_UNREACHABLE';
  return (
    <div className="gateway-problem" role="alert" data-error-code={problem.code}>
      <Icon name="alert" className="gateway-problem__icon" />
      <h2>{unreachable ? 'Cannot reach the Capstan gateway' : 'The console could not load the catalog'}</h2>
      <p>{errorText(problem)}</p>
      {unreachable && (
        <p className="muted">
          <code>GATEWAY_UNREACHABLE</code> is this console&apos;s own finding: no answer came back. The gateway never sends it.
        </p>
      )}
      <p className="muted">
        {unreachable ? (
          <>
            If you started it with <code>capstan serve</code>, check that it is still running, then retry.
          </>
        ) : (
          <>The gateway answered, but with this error. Retry once its cause is fixed.</>
        )}
      </p>
      <button
        type="button"
        className="button button--primary"
        onClick={() => {
          transport.reconnectNow();
          onRetry();
        }}
        disabled={retrying}
      >
        {retrying ? 'Retrying…' : 'Retry now'}
      </button>
    </div>
  );
}
