/**
 * A URL server's OAuth sign-in in its Providers row: who is signed in, the scopes, when the access
 * token expires and is next refreshed, the authorization server and the last error with its
 * reason; Sign in (the desktop app opens the system browser itself; in a browser the page opens a
 * tab, and the link stays for another machine's browser) and Sign out. Never a token: the
 * gateway's view has none. Nothing for a server that does not sign in with OAuth (or has not
 * asked for it yet).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { McpServerAuth } from '../../../shared/mcp';
import { isWebAddress } from '../../../shared/webAddress';
import { toErrorBody } from '../../api/errors';
import { useTransport } from '../../api/hooks';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { dateTime } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import './oauthStatus.css';

const authKey = (name: string) => ['serverAuth', name] as const;

const STATE_WORDS: Record<McpServerAuth['state'], string> = {
  not_used: 'Not used',
  signed_out: 'Not signed in',
  signing_in: 'Signing in…',
  signed_in: 'Signed in',
};

export function OAuthStatus({ name }: { name: string }) {
  const transport = useTransport();
  const client = useQueryClient();
  const auth = useQuery({
    queryKey: authKey(name),
    queryFn: () => transport.getServerAuth({ name }),
    // Followed closely while a browser may come back; otherwise now and then, for expiry and refresh.
    refetchInterval: (query) => (query.state.data?.state === 'signing_in' ? 1000 : 15_000),
  });
  const signIn = useMutation({
    mutationFn: () => transport.signInServer({ name }),
    onSuccess: ({ authorizationUrl, auth: next }) => {
      client.setQueryData(authKey(name), next);
      // The desktop app opened the system browser already; a browser console opens a tab.
      if (transport.kind === 'http') window.open(authorizationUrl, '_blank', 'noopener,noreferrer');
    },
  });
  const signOut = useMutation({
    mutationFn: () => transport.signOutServer({ name }),
    onSuccess: ({ auth: next }) => client.setQueryData(authKey(name), next),
  });
  const view = auth.data;
  if (!view?.applies || view.state === 'not_used') return null;
  const failure = signIn.error ?? signOut.error;
  const error = failure && toErrorBody(failure);
  const pending = signIn.isPending || signOut.isPending;
  return (
    <section className="provider-auth" aria-label={`${name} sign-in`} data-testid="oauth-status" data-state={view.state}>
      <p className="provider-auth__state">
        <Icon name={view.state === 'signed_in' ? 'check' : 'lock'} /> <strong>{STATE_WORDS[view.state]}</strong>
        {view.signedInAs && (
          <>
            {' '}as <span data-testid="signed-in-as">{view.signedInAs}</span>
          </>
        )}
      </p>
      {(view.scopes.length > 0 || view.expiresAt || view.authorizationServer) && (
        <dl className="provider-auth__facts">
          {view.scopes.length > 0 && <Fact name="Scopes" value={view.scopes.join(' ')} />}
          {view.expiresAt && <Fact name="Access token expires" value={dateTime(view.expiresAt)} />}
          {view.nextRefreshAt && <Fact name="Next refresh" value={dateTime(view.nextRefreshAt)} />}
          {view.authorizationServer && <Fact name="Authorization server" value={view.authorizationServer} />}
        </dl>
      )}
      {view.lastError && (
        <p className="provider-status__reason provider-status__reason--failed" data-testid="oauth-error">
          <Icon name="alert" /> {view.lastError.reason} <span className="muted">({dateTime(view.lastError.at)})</span>
        </p>
      )}
      {view.state === 'signing_in' && view.authorizationUrl && isSignInPage(view.authorizationUrl) && (
        <p className="muted">
          Waiting for the browser.{' '}
          <a href={view.authorizationUrl} target="_blank" rel="noopener noreferrer" data-testid="authorization-url">
            Open the sign-in page
          </a>
        </p>
      )}
      <div className="provider-auth__actions">
        {view.state !== 'signed_in' && (
          <button type="button" className="button button--small" onClick={() => !pending && signIn.mutate()} aria-disabled={pending}>
            <Icon name={signIn.isPending ? 'spinner' : 'lock'} className={signIn.isPending ? 'spin' : ''} />
            Sign in
          </button>
        )}
        {view.state === 'signed_in' && (
          <button type="button" className="button button--small" onClick={() => !pending && signOut.mutate()} aria-disabled={pending}>
            <Icon name={signOut.isPending ? 'spinner' : 'unplug'} className={signOut.isPending ? 'spin' : ''} />
            Sign out
          </button>
        )}
      </div>
      {error && <ErrorNotice what={signIn.error ? 'Could not sign in' : 'Could not sign out'} error={error} />}
    </section>
  );
}

function Fact({ name, value }: { name: string; value: string }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd>{value}</dd>
    </div>
  );
}

/** Only a web page is offered as a link (the gateway refuses any other sign-in address first). */
const isSignInPage = (url: string) => URL.canParse(url) && isWebAddress(new URL(url));
