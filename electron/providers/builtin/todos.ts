import type { Database } from '../../store/database';
import { GroupCommit } from '../../store/groupCommit';
import { defineTool } from '../../catalog/tool';

interface TodoRow {
  id: number;
  title: string;
  due: string | null;
  done: number;
  created_at: string;
}

const toTodo = (row: TodoRow) => ({
  id: row.id,
  title: row.title,
  due: row.due,
  done: row.done === 1,
  createdAt: row.created_at,
});

export const todoAddTool = (db: Database) =>
  defineTool<{ title: string; due?: string }>({
    name: 'todo_add',
    title: 'Add to-do',
    description: 'Add an open to-do item, optionally with a due date, to the local to-do list.',
    riskLevel: 'low',
    needConfirm: false,
    mutating: true,
    tags: ['todo', 'tasks', 'write', 'planning'],
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200, description: 'What needs doing' },
        due: { type: 'string', format: 'date', description: 'Due date, YYYY-MM-DD' },
      },
      required: ['title'],
      additionalProperties: false,
    },
    returnExample: { id: 7, title: 'Replace toner on floor 3', due: '2026-12-02', done: false, createdAt: '2026-11-30T09:15:02.118Z' },
    run: ({ title, due }) => {
      // Saved in its own transaction, never in the ledger's open batch (see groupCommit.ts).
      const row = GroupCommit.of(db).writeNow(() =>
        db.prepare('INSERT INTO todos (title, due, created_at) VALUES (?, ?, ?) RETURNING *').get(title.trim(), due ?? null, new Date().toISOString()),
      ) as unknown as TodoRow;
      return toTodo(row);
    },
  });

export const todoListTool = (db: Database) =>
  defineTool<{ status?: 'open' | 'done' | 'all'; limit?: number }>({
    name: 'todo_list',
    title: 'List to-dos',
    description: 'List to-do items, open ones by default, soonest due first, with counts of open and done items.',
    riskLevel: 'low',
    needConfirm: false,
    mutating: false,
    tags: ['todo', 'tasks', 'planning'],
    inputSchema: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['open', 'done', 'all'], default: 'open' },
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
      },
      additionalProperties: false,
    },
    returnExample: {
      status: 'open',
      counts: { open: 1, done: 3 },
      todos: [{ id: 7, title: 'Replace toner on floor 3', due: '2026-12-02', done: false, createdAt: '2026-11-30T09:15:02.118Z' }],
    },
    run: ({ status = 'open', limit = 50 }) => {
      const where = { open: 'WHERE done = 0', done: 'WHERE done = 1', all: '' }[status];
      const rows = db
        .prepare(`SELECT * FROM todos ${where} ORDER BY due IS NULL, due, id LIMIT ?`)
        .all(limit) as unknown as TodoRow[];
      const counts = db
        .prepare('SELECT coalesce(sum(done = 0), 0) AS open, coalesce(sum(done = 1), 0) AS done FROM todos')
        .get() as { open: number; done: number };
      return { status, counts: { open: counts.open, done: counts.done }, todos: rows.map(toTodo) };
    },
  });
