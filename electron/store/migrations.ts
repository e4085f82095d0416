/**
 * Schema migrations, oldest first. Never edit a shipped entry: append a new one.
 * The position in this list (1-based) is the schema version stored in `PRAGMA user_version`.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) STRICT;

  CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
  ) STRICT;

  CREATE VIRTUAL TABLE notes_fts USING fts5(title, body, tags, content='notes', content_rowid='id');
  CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts(rowid, title, body, tags) VALUES (new.id, new.title, new.body, new.tags);
  END;
  CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts(notes_fts, rowid, title, body, tags) VALUES ('delete', old.id, old.title, old.body, old.tags);
  END;

  CREATE TABLE todos (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    due TEXT,
    done INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
  ) STRICT;
  `,
  `
  CREATE TABLE ledger (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    task_id TEXT,
    session_id TEXT,
    request_id TEXT,
    capability TEXT,
    details TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
  ) STRICT;
  CREATE INDEX ledger_by_task ON ledger (task_id, seq);
  CREATE INDEX ledger_by_request ON ledger (request_id, seq);
  -- Append-only, enforced by the database itself.
  CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
  CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
  `,
  `
  -- The runtime's memory, so a restart loses nothing that matters (electron/store/taskStore.ts).
  -- Written in the ledger's group commit, so a row and the ledger entry that records its change
  -- commit together.
  CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    submitted_seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    version INTEGER NOT NULL,
    view TEXT NOT NULL
  ) STRICT;
  CREATE INDEX tasks_by_session ON tasks (session_id, submitted_seq);
  CREATE INDEX tasks_by_version ON tasks (version);
  CREATE TABLE conversation (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    task_id TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) STRICT;
  CREATE TABLE unknown_outcomes (
    session_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (session_id, request_id)
  ) STRICT;
  `,
  `
  -- Who each entry was written for (shared/principal.ts): operator, agent:<name> or system.
  -- NULL on entries written before principals existed; they still verify (ledger.ts entryHash).
  ALTER TABLE ledger ADD COLUMN principal TEXT;
  -- Agent tokens (electron/store/agentTokens.ts): only the SHA-256 of each token is kept.
  -- Revoking deletes the row, so a name may be used again (a rotated token, same principal).
  CREATE TABLE agent_tokens (
    name TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    last_used_at TEXT
  ) STRICT;
  `,
  `
  -- Each entry's MAC under a key derived from ledger.key (electron/runtime/ledgerChain.ts, entryMacs),
  -- so that an entry written without the key fails verification even when it chains correctly.
  -- NULL on entries written before; ledger.head records the first seq that must carry one.
  ALTER TABLE ledger ADD COLUMN mac TEXT;
  `,
  `
  -- Pinned contracts (electron/services/pins.ts): each MCP tool's descriptor as the operator took
  -- it, and its hash; a tool whose descriptor differs, or that has none here, is held for review.
  CREATE TABLE pins (
    provider TEXT NOT NULL,
    name TEXT NOT NULL,
    hash TEXT NOT NULL,
    descriptor TEXT NOT NULL,
    pinned_at TEXT NOT NULL,
    PRIMARY KEY (provider, name)
  ) STRICT;
  `,
  `
  -- The holds pins.ts records (contract_held), found by their capability at every listing without
  -- reading the whole ledger: a partial index, so the entries of calls, by far the most, cost it nothing.
  CREATE INDEX ledger_holds ON ledger (capability, seq) WHERE kind = 'contract_held';
  `,
];
