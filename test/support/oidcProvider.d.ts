/**
 * The part of oidc-provider's API the sign-in tests use (the package ships no types, and its
 * community typings are not a dependency here): just enough to keep the support code checked.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Client {
    grantTypeAllowed(type: string): boolean;
  }
  interface Interaction {
    uid: string;
    prompt: { name: string; details?: { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> } };
    params: Record<string, unknown>;
    grantId?: string;
    session?: { accountId: string };
  }
  interface Grant {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
    destroy(): Promise<void>;
  }
  interface AccessToken {
    clientId?: string;
    grantId?: string;
    scope?: string;
    exp: number;
    aud?: string | string[];
  }
  export interface Configuration {
    clients?: unknown[];
    features?: Record<string, unknown>;
    scopes?: string[];
    claims?: Record<string, string[]>;
    findAccount?: (ctx: unknown, id: string) => unknown;
    interactions?: { url: (ctx: unknown, interaction: Interaction) => string };
    issueRefreshToken?: (ctx: unknown, client: Client) => boolean | Promise<boolean>;
    ttl?: Record<string, number>;
  }
  export const errors: { InvalidTarget: new () => Error };
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: 'grant.success', listener: (ctx: { oidc: { params?: Record<string, unknown> } }) => void): void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    Grant: { new (init: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    AccessToken: { find(token: string): Promise<AccessToken | undefined> };
  }
}
