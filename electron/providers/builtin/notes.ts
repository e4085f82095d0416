import { clip } from '../../../shared/clip';
import type { Database } from '../../store/database';
import { GroupCommit } from '../../store/groupCommit';
import { defineTool } from '../../catalog/tool';

interface NoteRow {
  id: number;
  title: string;
  body: string;
  tags: string;
  created_at: string;
}

/**
 * Turns free text into an FTS5 query that cannot be a syntax error: every word becomes a
 * quoted prefix term, and all of them must match.
 */
export function ftsQuery(text: string): string {
  const words = text.normalize('NFKC').match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.map((word) => `"${word}"*`).join(' ');
}

export const noteAddTool = (db: Database) =>
  defineTool<{ title?: string; body: string; tags?: string[] }>({
    name: 'note_add',
    title: 'Add note',
    description: 'Save a note (title, body, tags) in the local note store so it can be found later with note_search.',
    riskLevel: 'low',
    needConfirm: false,
    mutating: true,
    tags: ['notes', 'write', 'knowledge'],
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string', maxLength: 200, description: 'Short title; defaults to the first line of the body' },
        body: { type: 'string', minLength: 1, maxLength: 20000, description: 'The note text' },
        tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 40 }, maxItems: 20, uniqueItems: true },
      },
      required: ['body'],
      additionalProperties: false,
    },
    returnExample: {
      id: 42,
      title: 'Printer on floor 3',
      tags: ['printer', 'floor-3'],
      createdAt: '2026-11-30T09:15:02.118Z',
    },
    run: ({ title, body, tags = [] }) => {
      // A title given is within the schema's 200 characters; one taken from the body is cut to as many UTF-16 units.
      const cleanTitle = title?.trim() || clip(body.trim().split('\n')[0] ?? '', 200);
      const createdAt = new Date().toISOString();
      // Saved in its own transaction, never in the ledger's open batch (see groupCommit.ts).
      const { lastInsertRowid } = GroupCommit.of(db).writeNow(() =>
        db.prepare('INSERT INTO notes (title, body, tags, created_at) VALUES (?, ?, ?, ?)').run(cleanTitle, body, JSON.stringify(tags), createdAt),
      );
      return { id: Number(lastInsertRowid), title: cleanTitle, tags, createdAt };
    },
  });

export const noteSearchTool = (db: Database) =>
  defineTool<{ query: string; limit?: number }>({
    name: 'note_search',
    title: 'Search notes',
    description: 'Full-text search over saved notes (title, body and tags), best matches first, with highlighted snippets.',
    riskLevel: 'low',
    needConfirm: false,
    mutating: false,
    tags: ['notes', 'search', 'knowledge', 'retrieval'],
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 500, description: 'Words to look for' },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
      },
      required: ['query'],
      additionalProperties: false,
    },
    returnExample: {
      query: 'printer',
      total: 1,
      notes: [
        {
          id: 42,
          title: 'Printer on floor 3',
          snippet: 'The [printer] on floor 3 is offline after the switch swap…',
          tags: ['printer', 'floor-3'],
          createdAt: '2026-11-30T09:15:02.118Z',
        },
      ],
    },
    run: ({ query, limit = 10 }) => {
      const match = ftsQuery(query);
      if (!match) return { query, total: 0, notes: [] };
      const { total } = db.prepare('SELECT count(*) AS total FROM notes_fts WHERE notes_fts MATCH ?').get(match) as {
        total: number;
      };
      const rows = db
        .prepare(
          `SELECT notes.id, notes.title, notes.tags, notes.created_at,
                  snippet(notes_fts, 1, '[', ']', '…', 16) AS snippet
             FROM notes_fts JOIN notes ON notes.id = notes_fts.rowid
            WHERE notes_fts MATCH ? ORDER BY rank LIMIT ?`,
        )
        .all(match, limit) as unknown as (Omit<NoteRow, 'body'> & { snippet: string })[];
      return {
        query,
        total,
        notes: rows.map((row) => ({
          id: row.id,
          title: row.title,
          snippet: row.snippet,
          tags: JSON.parse(row.tags) as string[],
          createdAt: row.created_at,
        })),
      };
    },
  });
