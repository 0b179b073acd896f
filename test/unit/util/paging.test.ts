/** util/paging.ts: the one pager of the lists svcd pages (children, publishers): search, sort either way, window. */
import t from 'tap'
import { compareText, pageOf, type PageQuery } from '../../../src/util/paging.js'

interface Item {
  name: string
  n: number
}

const items: Item[] = [
  { name: 'delta', n: 2 },
  { name: 'Alpha', n: 3 },
  { name: 'charlie', n: 1 },
  { name: 'bravo', n: 2 },
  { name: 'echo', n: 3 },
]
const rules = { text: (i: Item) => i.name, compare: { name: (a: Item, b: Item) => compareText(a.name, b.name), n: (a: Item, b: Item) => a.n - b.n } }
const q = (over: Partial<PageQuery<'name' | 'n'>>): PageQuery<'name' | 'n'> => ({ offset: 0, limit: 100, q: '', sort: 'name', order: 'asc', ...over })
const names = (p: { items: Item[] }) => p.items.map((i) => i.name)

t.test('sorted by a key, either way; ties in the list order, reversed when descending', async (t) => {
  t.same(names(pageOf(items, q({}), rules)), ['Alpha', 'bravo', 'charlie', 'delta', 'echo'], 'text order, not the locale (upper case first)')
  t.same(names(pageOf(items, q({ sort: 'n' }), rules)), ['charlie', 'delta', 'bravo', 'Alpha', 'echo'])
  t.same(names(pageOf(items, q({ sort: 'n', order: 'desc' }), rules)), ['echo', 'Alpha', 'bravo', 'delta', 'charlie'])
  t.same(names(pageOf(items, q({}), rules)), names(pageOf([...items].reverse(), q({}), rules)), 'a total order makes the input order irrelevant')
})

t.test('a window of the matches, with their count', async (t) => {
  t.same(pageOf(items, q({ offset: 1, limit: 2 }), rules), { total: 5, items: [items[3], items[2]] })
  t.same(pageOf(items, q({ offset: 5 }), rules), { total: 5, items: [] }, 'past the end')
  const pages = [0, 2, 4].flatMap((offset) => names(pageOf(items, q({ offset, limit: 2, sort: 'n' }), rules)))
  t.same(pages, names(pageOf(items, q({ sort: 'n' }), rules)), 'pages make up the whole')
})

t.test('searched case-insensitively in the text', async (t) => {
  t.same(pageOf(items, q({ q: 'A' }), rules).total, 4, 'alpha, bravo, charlie, delta')
  t.same(names(pageOf(items, q({ q: 'ALP' }), rules)), ['Alpha'])
  t.same(pageOf(items, q({ q: 'zulu' }), rules), { total: 0, items: [] })
  t.same(items.map((i) => i.name), ['delta', 'Alpha', 'charlie', 'bravo', 'echo'], 'the list itself is left as it was')
})
