/**
 * Where one URL server's OAuth credentials live between runs: its registered clients (one per
 * authorization server, keyed by issuer), its tokens, the discovery it last did and the loopback
 * port its redirect URI names. One file per server in `<data dir>/oauth/`, owner-only (0600 in a
 * 0700 folder), written whole and renamed into place, its content sealed by the injected
 * `Encrypter` (Electron's safeStorage in the desktop app; none under `capstan serve`, where the
 * file mode alone guards it). Tokens are secrets: nothing here logs them, and nothing outside the
 * oauth folder reads this file.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** Seals a file's content: Electron's safeStorage where it is available, injected by main.ts. */
export interface Encrypter {
  /** Named in the file, so a file sealed by one is never read as another's. */
  readonly kind: string;
  encrypt(plain: string): Buffer;
  decrypt(sealed: Buffer): string;
}

/** No sealing: the file's owner-only mode is the guard (`capstan serve`, tests). */
export const PLAIN: Encrypter = { kind: 'none', encrypt: (plain) => Buffer.from(plain, 'utf8'), decrypt: (sealed) => sealed.toString('utf8') };

const Json = z.record(z.string(), z.unknown());
export const StoredTokens = z
  .object({
    access_token: z.string(),
    token_type: z.string(),
    expires_in: z.number().optional(),
    scope: z.string().optional(),
    refresh_token: z.string().optional(),
    id_token: z.string().optional(),
    issuer: z.string().optional(),
  })
  .passthrough();
export type StoredTokens = z.infer<typeof StoredTokens>;

export const OAuthRecord = z.object({
  /** Registered clients by the issuer of the authorization server that registered them. */
  clients: z.record(z.string(), Json).default({}),
  tokens: StoredTokens.optional(),
  /** When the tokens were saved (ms since the epoch): with `expires_in`, when they expire. */
  savedAt: z.number().optional(),
  /** The SDK's discovery state (authorization server, metadata), kept to skip discovery on refresh. */
  discovery: Json.optional(),
  /** The loopback port the registered redirect URI names: the next sign-in listens there again. */
  redirectPort: z.number().int().min(1).max(65535).optional(),
  /** The scope last asked for, so a step-up asks for it and the new scope together. */
  requestedScope: z.string().optional(),
});
export type OAuthRecord = z.infer<typeof OAuthRecord>;

const Sealed = z.object({ version: z.literal(1), encryption: z.string(), data: z.string() });

/** A record as read, and the file it was read from: the same inode, size and modification time are the same file. */
interface Read {
  record: OAuthRecord;
  stamp: string;
}

export class TokenStore {
  /**
   * Records by server, read again only when their file changed. Every request to a server reads
   * its token, and each of its answers is masked with it; a read is a file, JSON, a schema and a
   * decryption (safeStorage's in the desktop app), a stat a twentieth of that. Another process (the
   * CLI's sign-in) replaces the file by renaming over it, which a stat sees as a new inode.
   */
  readonly #read = new Map<string, Read>();

  constructor(
    private readonly dir: string,
    private readonly encrypter: Encrypter = PLAIN,
  ) {}

  /** The server's record (do not change it: it is shared); an empty one when it has none (or one this store cannot read, such as a file sealed by another encrypter). */
  read(server: string): OAuthRecord {
    const file = this.#file(server);
    const stamp = stampOf(file);
    const known = this.#read.get(server);
    if (known && stamp !== undefined && known.stamp === stamp) return known.record;
    const record = stamp === undefined ? undefined : this.#readFile(file);
    if (record && stamp !== undefined) this.#read.set(server, { record, stamp });
    else this.#read.delete(server);
    return record ?? OAuthRecord.parse({});
  }

  #readFile(file: string): OAuthRecord | undefined {
    let raw: string;
    try {
      raw = readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    try {
      const sealed = Sealed.parse(JSON.parse(raw));
      if (sealed.encryption !== this.encrypter.kind) return undefined;
      return OAuthRecord.parse(JSON.parse(this.encrypter.decrypt(Buffer.from(sealed.data, 'base64'))));
    } catch {
      return undefined;
    }
  }

  write(server: string, record: OAuthRecord): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    const data = this.encrypter.encrypt(JSON.stringify(OAuthRecord.parse(record))).toString('base64');
    const file = this.#file(server);
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ version: 1, encryption: this.encrypter.kind, data }), { mode: 0o600 });
    renameSync(temporary, file);
    this.#read.delete(server);
  }

  update(server: string, change: (record: OAuthRecord) => OAuthRecord): OAuthRecord {
    const next = change(this.read(server));
    this.write(server, next);
    return next;
  }

  remove(server: string): void {
    rmSync(this.#file(server), { force: true });
    this.#read.delete(server);
  }

  /** A file name from the server's name that cannot leave the folder. */
  #file(server: string): string {
    return join(this.dir, `${encodeURIComponent(server).replaceAll('.', '%2E')}.json`);
  }
}

/** The file's identity and version, or undefined when there is none. */
function stampOf(file: string): string | undefined {
  const stat = statSync(file, { bigint: true, throwIfNoEntry: false });
  return stat ? `${stat.ino}:${stat.size}:${stat.mtimeNs}` : undefined;
}
