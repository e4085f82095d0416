/**
 * Hearing from an MCP server about its resources and prompts, in either protocol era: that their
 * lists changed (to list them again) and that a followed resource was updated.
 *
 * On a 2025-era connection the server sends list_changed unsolicited, and a resource is followed
 * with resources/subscribe and resources/unsubscribe. The 2026-07-28 revision has neither: the
 * client opens `subscriptions/listen` streams, one here for the lists the server says change
 * (`listChanged` in its capabilities) and one for the followed URIs, opened again whenever that
 * set changes. Either way the notifications reach the same handlers. (Tools' list_changed is
 * connection.ts's own.)
 */
import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { CapstanError } from '../../../shared/errors';
import { declaredCapabilities } from './resources';

export interface DeclaredEvents {
  /** notifications/resources/list_changed or notifications/prompts/list_changed. */
  onListChanged(): void;
  /** notifications/resources/updated for a URI Capstan follows. */
  onUpdated(uri: string): void;
}

export class DeclaredWatch {
  /** 2026-07-28: the stream for list changes, and the one for the followed URIs. */
  #lists: McpSubscription | undefined;
  #followedStream: McpSubscription | undefined;
  /** 2025: the URIs subscribed on the server. */
  readonly #subscribed = new Set<string>();
  #closed = false;

  private constructor(
    private readonly client: Client,
    private readonly timeoutMs: number,
  ) {}

  /** Listens on a new connection; a server that refuses the list stream keeps its lists as read at connection. */
  static async open(client: Client, events: DeclaredEvents, timeoutMs: number, warn: (reason: string) => void): Promise<DeclaredWatch> {
    client.setNotificationHandler('notifications/resources/list_changed', () => events.onListChanged());
    client.setNotificationHandler('notifications/prompts/list_changed', () => events.onListChanged());
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      const uri = (notification.params as { uri?: unknown } | undefined)?.uri;
      if (typeof uri === 'string') events.onUpdated(uri);
    });
    const watch = new DeclaredWatch(client, timeoutMs);
    const capabilities = client.getServerCapabilities() ?? {};
    const lists = { promptsListChanged: capabilities.prompts?.listChanged === true, resourcesListChanged: capabilities.resources?.listChanged === true };
    if (watch.#modern && (lists.promptsListChanged || lists.resourcesListChanged)) {
      watch.#lists = await client.listen(lists, { timeout: timeoutMs }).catch((error: unknown) => {
        warn(`the server did not open a stream of its list changes: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      });
    }
    return watch;
  }

  get #modern(): boolean {
    return this.client.getProtocolEra() === 'modern';
  }

  /**
   * Makes the server send updates for exactly these URIs. SERVER_FEATURE_UNSUPPORTED when it does
   * not declare `resources.subscribe`; its refusal otherwise is the SDK's error.
   */
  async follow(uris: readonly string[]): Promise<void> {
    if (this.#closed) return;
    if (uris.length > 0 && !declaredCapabilities(this.client).subscribe) {
      throw new CapstanError('SERVER_FEATURE_UNSUPPORTED', 'the server does not offer resource subscriptions (its capabilities declare no resources.subscribe)');
    }
    if (this.#modern) {
      const previous = this.#followedStream;
      this.#followedStream = uris.length > 0 ? await this.client.listen({ resourceSubscriptions: [...uris] }, { timeout: this.timeoutMs }) : undefined;
      await previous?.close().catch(() => undefined);
      return;
    }
    const wanted = new Set(uris);
    for (const uri of wanted) {
      if (this.#subscribed.has(uri)) continue;
      await this.client.subscribeResource({ uri }, { timeout: this.timeoutMs });
      this.#subscribed.add(uri);
    }
    for (const uri of [...this.#subscribed]) {
      if (wanted.has(uri)) continue;
      this.#subscribed.delete(uri);
      await this.client.unsubscribeResource({ uri }, { timeout: this.timeoutMs }).catch(() => undefined);
    }
  }

  /** Closes the streams (the connection is ending). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([this.#lists?.close(), this.#followedStream?.close()].map((closing) => closing?.catch(() => undefined)));
  }
}
