/** Scheduled tasks in SQLite (design.md "Scheduler"): due times survive a restart. */
import type { SqlDb } from './sql.js'
import type { Task, TaskStore } from './interfaces.js'

export class SqlTaskStore implements TaskStore {
  constructor(private readonly db: SqlDb) {}

  /** Insert or move a task; `attempts` is kept unless given. */
  put(t: Omit<Task, 'attempts'> & { attempts?: number }): void {
    this.db
      .prepare('INSERT INTO tasks (key, kind, ca, arg, due, attempts) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET due = excluded.due, attempts = coalesce(?, tasks.attempts)')
      .run(t.key, t.kind, t.ca, t.arg, Math.round(t.due), t.attempts ?? 0, t.attempts ?? null)
  }

  /** Schedule earlier only: keep an earlier due time if the task is already due sooner. */
  putEarlier(t: Omit<Task, 'attempts'>): void {
    const cur = this.get(t.key)
    if (!cur || cur.due > t.due) this.put({ ...t, ...(cur ? { attempts: cur.attempts } : {}) })
  }

  get(key: string): Task | undefined {
    return this.db.prepare('SELECT * FROM tasks WHERE key = ?').get(key) as Task | undefined
  }

  due(now: number, limit: number): Task[] {
    return this.db.prepare('SELECT * FROM tasks WHERE due <= ? ORDER BY due LIMIT ?').all(now, limit) as Task[]
  }

  next(): number | undefined {
    return (this.db.prepare('SELECT min(due) AS due FROM tasks').get() as { due: number | null }).due ?? undefined
  }

  remove(key: string): void {
    this.db.prepare('DELETE FROM tasks WHERE key = ?').run(key)
  }

  removeCa(ca: string): void {
    this.db.prepare('DELETE FROM tasks WHERE ca = ?').run(ca)
  }

  all(): Task[] {
    return this.db.prepare('SELECT * FROM tasks ORDER BY due').all() as Task[]
  }
}
