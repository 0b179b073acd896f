/** A schema migration: forward-only, numbered, its SQL in the file (style.md §9). */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly sql: string
}
