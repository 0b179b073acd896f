/**
 * Strict, lazy DER reader (X.690 §8, §10, §11): `parseDer` reads the outer header only; `firstChild`/`nextSibling`,
 * `children` and `DerCursor` read one level on demand, against a node and a depth budget (DerOptions). Offsets are
 * positions in the input, `content()`/`raw()` are views. Value readers: der-values.ts (re-exported). Used by objects/.
 */
import { DecodeError } from '../util/errors.js'
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_NODES, DerBudget, DerNode, tagName } from './der-node.js'
import { checkUniversalValue } from './der-values.js'

export * from './der-node.js'
export * from './der-values.js'

export interface DerOptions {
  /** Headers that may be read in total over the life of this parse (default 1,000,000). */
  maxNodes?: number
  /** Nesting depth allowed below the root (default 64). */
  maxDepth?: number
}

const LIMIT_RULE = 'DER reader limit'

// Per universal tag number: 1 string type that DER keeps primitive (X.690 §10.2), 2 primitive-only type
// (X.690 §8.2–8.19), 3 SEQUENCE/SET (constructed only, §8.9.1), 4 end-of-contents (never in DER).
const UNIVERSAL = new Uint8Array(32)
for (const n of [3, 4, 12, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]) UNIVERSAL[n] = 1
for (const n of [1, 2, 5, 6, 9, 10, 13]) UNIVERSAL[n] = 2
UNIVERSAL[16] = UNIVERSAL[17] = 3
UNIVERSAL[0] = 4

function fail(rule: string, message: string, pos: number): never {
  throw new DecodeError(rule, `${message} at offset ${pos}`)
}

/** Read the high-tag-number form (X.690 §8.1.2.4) starting after the first octet; returns [number, next pos]. */
function highTag(bytes: Uint8Array, pos: number, limit: number): [number, number] {
  if (pos < limit && bytes[pos] === 0x80) fail('X.690 §8.1.2.4.2', 'tag number not minimal', pos)
  let n = 0
  for (let i = 0; i < 4; i++, pos++) {
    if (pos >= limit) fail('X.690 §8.1.2.4', 'truncated identifier octets', pos)
    n = n * 128 + (bytes[pos] & 0x7f)
    if ((bytes[pos] & 0x80) === 0) {
      if (n < 31) fail('X.690 §8.1.2.2', `tag number ${n} must use the short form`, pos)
      return [n, pos + 1]
    }
  }
  return fail(LIMIT_RULE, 'tag number too large', pos)
}

/** Read the length octets at `pos` (X.690 §8.1.3, DER §10.1); they take 1 + (first & 0x7f) octets in the long form. */
function readLength(bytes: Uint8Array, pos: number, limit: number): number {
  if (pos >= limit) fail('X.690 §8.1.3', 'truncated: no length octets', pos)
  const first = bytes[pos]
  if (first < 0x80) return first
  if (first === 0x80) fail('X.690 §10.1', 'indefinite length', pos)
  if (first === 0xff) fail('X.690 §8.1.3.5', 'reserved length octet 0xff', pos)
  const n = first & 0x7f
  if (n > 6) fail('X.690 §8.1.3', `length of ${n} octets exceeds the input`, pos)
  if (pos + 1 + n > limit) fail('X.690 §8.1.3', 'truncated length octets', pos)
  if (bytes[pos + 1] === 0) fail('X.690 §10.1', 'length not minimal (leading zero octet)', pos)
  let len = 0
  for (let i = 1; i <= n; i++) len = len * 256 + bytes[pos + i]
  if (len < 0x80) fail('X.690 §10.1', 'length not minimal (long form for a short length)', pos)
  return len
}

function checkUniversal(number: number, constructed: boolean, pos: number): void {
  const kind = number < 32 ? UNIVERSAL[number] : 0
  if (kind === 4) fail('X.690 §8.1.5', 'end-of-contents octets are not DER', pos)
  if (constructed && kind === 1) fail('X.690 §10.2', `constructed encoding of string type ${number}`, pos)
  if (constructed && kind === 2) fail('X.690 §8.1.2.5', `type ${number} must be primitive`, pos)
  if (!constructed && kind === 3) fail('X.690 §8.9.1', `${number === 16 ? 'SEQUENCE' : 'SET'} must be constructed`, pos)
}

/** Read one header at `pos`, bounded by `limit`, at `depth`. The primitive under every other function here. */
export function readNode(bytes: Uint8Array, pos: number, limit: number, depth: number, budget: DerBudget): DerNode {
  if (++budget.nodes > budget.maxNodes) fail(LIMIT_RULE, `more than ${budget.maxNodes} nodes`, pos)
  if (depth > budget.maxDepth) fail(LIMIT_RULE, `nesting deeper than ${budget.maxDepth}`, pos)
  if (pos >= limit) fail('X.690 §8.1.2', 'truncated: no identifier octet', pos)
  const tag = bytes[pos]
  const cls = tag >> 6
  const constructed = (tag & 0x20) !== 0
  let number = tag & 0x1f
  let p = pos + 1
  if (number === 0x1f) [number, p] = highTag(bytes, p, limit)
  const length = readLength(bytes, p, limit)
  const contentStart = p + (bytes[p] < 0x80 ? 1 : 1 + (bytes[p] & 0x7f))
  // X.690 §8.1.3: the contents must fit in what encloses them (this catches huge claimed lengths early).
  if (length > limit - contentStart) fail('X.690 §8.1.3', `length ${length} exceeds the enclosing data`, pos)
  if (cls === 0) checkUniversal(number, constructed, pos)
  const end = contentStart + length
  return new DerNode(bytes, tag, cls, constructed, number, pos, contentStart - pos, length, end, limit, depth, budget)
}

/** Parse the outermost TLV of `bytes`; the rest is read lazily. Trailing bytes are an error. */
export function parseDer(bytes: Uint8Array, opts: DerOptions = {}): DerNode {
  const budget = new DerBudget(opts.maxNodes ?? DEFAULT_MAX_NODES, opts.maxDepth ?? DEFAULT_MAX_DEPTH)
  const node = readNode(bytes, 0, bytes.length, 0, budget)
  if (node.end !== bytes.length) fail('X.690 §8.1.1', `${bytes.length - node.end} trailing bytes after the value`, node.end)
  return node
}

/** Parse the contents of a primitive node (an OCTET STRING or BIT STRING holding DER) with the same budget. */
export function parseEmbedded(node: DerNode, skip = 0): DerNode {
  if (node.constructed) fail('X.690 §10.2', 'embedded DER must be inside a primitive string', node.start)
  const start = node.contentStart + skip
  const inner = readNode(node.bytes, start, node.end, node.depth + 1, node.budget)
  if (inner.end !== node.end) fail('X.690 §8.1.1', `${node.end - inner.end} trailing bytes after the value`, inner.end)
  return inner
}

/** The first child of a constructed node, or undefined when it is empty. */
export function firstChild(node: DerNode): DerNode | undefined {
  if (!node.constructed) fail('X.690 §8.1.2.5', 'expected a constructed encoding', node.start)
  const start = node.start + node.headerLength
  return start === node.end ? undefined : readNode(node.bytes, start, node.end, node.depth + 1, node.budget)
}

/** The next node in the same enclosing contents, or undefined after the last one. */
export function nextSibling(node: DerNode): DerNode | undefined {
  return node.end === node.limit ? undefined : readNode(node.bytes, node.end, node.limit, node.depth, node.budget)
}

/** All children of a constructed node (one level). */
export function children(node: DerNode): DerNode[] {
  const out: DerNode[] = []
  for (let c = firstChild(node); c !== undefined; c = nextSibling(c)) out.push(c)
  return out
}

/** The node itself when its identifier octet is `tag`, else DecodeError(rule). */
export function expectTag(node: DerNode | undefined, tag: number, rule: string, what = tagName(tag)): DerNode {
  if (node === undefined) throw new DecodeError(rule, `${what} is missing`)
  if (node.tag !== tag) fail(rule, `expected ${what}, found ${tagName(node.tag)}`, node.start)
  return node
}

/** Check a SEQUENCE and return a cursor over its elements. */
export function expectSequence(node: DerNode | undefined, rule: string, what = 'SEQUENCE'): DerCursor {
  return new DerCursor(expectTag(node, 0x30, rule, what))
}

/** Children of a SET OF, checked to be in DER order (X.690 §11.6: ascending encodings). */
export function setOfChildren(node: DerNode | undefined, rule: string, what = 'SET OF'): DerNode[] {
  const out = children(expectTag(node, 0x31, rule, what))
  for (let i = 1; i < out.length; i++) {
    if (compareTlv(out[i - 1], out[i]) > 0) fail('X.690 §11.6', `${what} elements are not in ascending order`, out[i].start)
  }
  return out
}

function compareTlv(a: DerNode, b: DerNode): number {
  const n = Math.min(a.end - a.start, b.end - b.start)
  for (let i = 0; i < n; i++) {
    const d = a.bytes[a.start + i] - b.bytes[b.start + i]
    if (d !== 0) return d
  }
  return a.end - a.start - (b.end - b.start)
}

/** Reads the elements of a constructed node in order: required, optional-by-tag, then `end()`. */
export class DerCursor {
  private cur: DerNode | undefined
  constructor(readonly node: DerNode) {
    this.cur = firstChild(node)
  }

  /** The next element without consuming it. */
  peek(): DerNode | undefined {
    return this.cur
  }

  /** Consume the next element; it must exist (and carry `tag`, when given), else DecodeError(rule). */
  next(rule: string, tag?: number, what?: string): DerNode {
    const n = this.cur
    if (n === undefined) throw new DecodeError(rule, `${what ?? (tag === undefined ? 'element' : tagName(tag))} is missing`)
    if (tag !== undefined) expectTag(n, tag, rule, what)
    this.cur = nextSibling(n)
    return n
  }

  /** Consume the next element only when its identifier octet is `tag`. */
  optional(tag: number): DerNode | undefined {
    const n = this.cur
    if (n === undefined || n.tag !== tag) return undefined
    this.cur = nextSibling(n)
    return n
  }

  /** True when every element has been consumed. */
  done(): boolean {
    return this.cur === undefined
  }

  /** Consume and return the remaining elements. */
  rest(): DerNode[] {
    const out: DerNode[] = []
    for (; this.cur !== undefined; this.cur = nextSibling(this.cur)) out.push(this.cur)
    return out
  }

  /** DecodeError(rule) when elements are left over. */
  end(rule: string): void {
    if (this.cur !== undefined) fail(rule, `unexpected ${tagName(this.cur.tag)} after the last element`, this.cur.start)
  }
}

/** Shorthand: a cursor over any constructed node (e.g. an [n] EXPLICIT wrapper). */
export function cursor(node: DerNode): DerCursor {
  return new DerCursor(node)
}

/** Visit every node below `node` (iteratively, within the budget) and apply the DER value checks of each
 *  universal primitive type. For a full strictness check of an object we built; hot paths read lazily instead. */
export function checkDer(node: DerNode): void {
  const stack: DerNode[] = [node]
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    if (n.constructed) {
      for (let c = firstChild(n); c !== undefined; c = nextSibling(c)) stack.push(c)
    } else if (n.cls === 0) checkUniversalValue(n)
  }
}
