/** Server properties (key/value): the svcd version that last wrote the data, creation time, … */
import type { SqlDb } from './sql.js'
import type { PropertyStore } from './interfaces.js'

export function propertyStore(db: SqlDb): PropertyStore {
  return {
    get(key) {
      const row = db.prepare('SELECT value FROM properties WHERE key = ?').get(key) as { value: string } | undefined
      return row?.value
    },
    set(key, value) {
      db.prepare('INSERT INTO properties (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value)
    },
  }
}
