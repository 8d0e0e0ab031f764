/**
 * A persistent ordered map: a weight-balanced binary search tree (Adams' trees, with the
 * balance parameters ⟨3, 2⟩ proven correct by Hirai and Yamamoto). Every update copies only the
 * path from the root to the changed node, so it costs O(log n) and leaves the old tree intact;
 * versions share the rest. The chat store keeps its indexes (conversations, message ids, messages
 * in time order) in these trees, which makes a `ChatState` an immutable value with O(log n) updates.
 *
 * Private to the store: not exported from the package entry.
 *
 * @module
 */

// --- model ---

/** A node of the tree; `n` is the size of the subtree rooted here. */
export type Node<K, V> = {
  readonly k: K
  readonly v: V
  readonly l: Tree<K, V>
  readonly r: Tree<K, V>
  readonly n: number
}

/** A persistent ordered map (`undefined` is the empty map). */
export type Tree<K, V> = Node<K, V> | undefined

/** A total order on keys: negative, zero or positive. */
export type Compare<K> = (a: K, b: K) => number

const DELTA = 3
const RATIO = 2

/** The number of entries. */
export const size = <K, V>(t: Tree<K, V>): number => (t === undefined ? 0 : t.n)

const node = <K, V>(k: K, v: V, l: Tree<K, V>, r: Tree<K, V>): Node<K, V> => ({ k, v, l, r, n: size(l) + size(r) + 1 })

// --- balancing ---

const singleL = <K, V>(k: K, v: V, l: Tree<K, V>, r: Node<K, V>): Node<K, V> => node(r.k, r.v, node(k, v, l, r.l), r.r)
const singleR = <K, V>(k: K, v: V, l: Node<K, V>, r: Tree<K, V>): Node<K, V> => node(l.k, l.v, l.l, node(k, v, l.r, r))

const doubleL = <K, V>(k: K, v: V, l: Tree<K, V>, r: Node<K, V>): Node<K, V> => {
  const rl = r.l as Node<K, V>
  return node(rl.k, rl.v, node(k, v, l, rl.l), node(r.k, r.v, rl.r, r.r))
}
const doubleR = <K, V>(k: K, v: V, l: Node<K, V>, r: Tree<K, V>): Node<K, V> => {
  const lr = l.r as Node<K, V>
  return node(lr.k, lr.v, node(l.k, l.v, l.l, lr.l), node(k, v, lr.r, r))
}

/** Rebuilds a node whose subtrees went out of balance by at most one insertion or deletion. */
const balance = <K, V>(k: K, v: V, l: Tree<K, V>, r: Tree<K, V>): Node<K, V> => {
  const sl = size(l)
  const sr = size(r)
  if (sl + sr <= 1) return node(k, v, l, r)
  if (r !== undefined && sr > DELTA * sl) return size(r.l) < RATIO * size(r.r) ? singleL(k, v, l, r) : doubleL(k, v, l, r)
  if (l !== undefined && sl > DELTA * sr) return size(l.r) < RATIO * size(l.l) ? singleR(k, v, l, r) : doubleR(k, v, l, r)
  return node(k, v, l, r)
}

// --- lookups ---

/** The value at `key`, or `undefined`. */
export const get = <K, V>(cmp: Compare<K>, key: K, t: Tree<K, V>): V | undefined => {
  let x = t
  while (x !== undefined) {
    const c = cmp(key, x.k)
    if (c === 0) return x.v
    x = c < 0 ? x.l : x.r
  }
  return undefined
}

/** The node at `key`, or `undefined`. */
const nodeAt = <K, V>(cmp: Compare<K>, key: K, t: Tree<K, V>): Node<K, V> | undefined => {
  let x = t
  while (x !== undefined) {
    const c = cmp(key, x.k)
    if (c === 0) return x
    x = c < 0 ? x.l : x.r
  }
  return undefined
}

/**
 * The entries of `b` that `a` does not hold with the same value (`===`), in key order. A subtree
 * `b` shares with `a` (an update copies only a path) is skipped whole, so the cost follows what
 * changed between two versions, not their size.
 */
export const changed = <K, V>(cmp: Compare<K>, a: Tree<K, V>, b: Tree<K, V>): Array<readonly [K, V]> => {
  const out: Array<readonly [K, V]> = []
  const walk = (x: Tree<K, V>): void => {
    if (x === undefined) return
    const y = nodeAt(cmp, x.k, a)
    if (y === x) return
    walk(x.l)
    if (y === undefined || y.v !== x.v) out.push([x.k, x.v])
    walk(x.r)
  }
  walk(b)
  return out
}

/** The entry with the smallest key. */
export const min = <K, V>(t: Tree<K, V>): Node<K, V> | undefined => {
  let x = t
  while (x?.l !== undefined) x = x.l
  return x
}

/** The entry with the largest key. */
export const max = <K, V>(t: Tree<K, V>): Node<K, V> | undefined => {
  let x = t
  while (x?.r !== undefined) x = x.r
  return x
}

// --- updates ---

/** The tree with `key` bound to `value` (replacing any previous binding). */
export const insert = <K, V>(cmp: Compare<K>, key: K, value: V, t: Tree<K, V>): Node<K, V> => {
  if (t === undefined) return node(key, value, undefined, undefined)
  const c = cmp(key, t.k)
  if (c < 0) return balance(t.k, t.v, insert(cmp, key, value, t.l), t.r)
  if (c > 0) return balance(t.k, t.v, t.l, insert(cmp, key, value, t.r))
  return node(key, value, t.l, t.r)
}

const removeMinNode = <K, V>(t: Node<K, V>): readonly [Node<K, V>, Tree<K, V>] => {
  if (t.l === undefined) return [t, t.r]
  const [m, l] = removeMinNode(t.l)
  return [m, balance(t.k, t.v, l, t.r)]
}

const removeMaxNode = <K, V>(t: Node<K, V>): readonly [Node<K, V>, Tree<K, V>] => {
  if (t.r === undefined) return [t, t.l]
  const [m, r] = removeMaxNode(t.r)
  return [m, balance(t.k, t.v, t.l, r)]
}

const glue = <K, V>(l: Tree<K, V>, r: Tree<K, V>): Tree<K, V> => {
  if (l === undefined) return r
  if (r === undefined) return l
  if (l.n > r.n) {
    const [m, rest] = removeMaxNode(l)
    return balance(m.k, m.v, rest, r)
  }
  const [m, rest] = removeMinNode(r)
  return balance(m.k, m.v, l, rest)
}

/** The tree without `key`; the very same tree when `key` is absent. */
export const remove = <K, V>(cmp: Compare<K>, key: K, t: Tree<K, V>): Tree<K, V> => {
  if (t === undefined) return t
  const c = cmp(key, t.k)
  if (c < 0) {
    const l = remove(cmp, key, t.l)
    return l === t.l ? t : balance(t.k, t.v, l, t.r)
  }
  if (c > 0) {
    const r = remove(cmp, key, t.r)
    return r === t.r ? t : balance(t.k, t.v, t.l, r)
  }
  return glue(t.l, t.r)
}

/** The tree without its smallest entry, and that entry. */
export const removeMin = <K, V>(t: Node<K, V>): readonly [Node<K, V>, Tree<K, V>] => removeMinNode(t)

/** Builds a balanced tree from entries already in strictly increasing key order, in O(n). */
export const fromSorted = <K, V>(entries: ReadonlyArray<readonly [K, V]>): Tree<K, V> => {
  const build = (lo: number, hi: number): Tree<K, V> => {
    if (lo >= hi) return undefined
    const mid = (lo + hi) >>> 1
    const e = entries[mid] as readonly [K, V]
    return node(e[0], e[1], build(lo, mid), build(mid + 1, hi))
  }
  return build(0, entries.length)
}

// --- traversal ---

/**
 * Visits entries in increasing key order, from the first key for which `atLeast` holds (a
 * predicate that is false below some key and true from there on; all keys when `undefined`),
 * until `f` returns `false`. Costs O(log n) to find the start, then O(1) amortised per entry.
 */
export const forEachUp = <K, V>(t: Tree<K, V>, atLeast: ((k: K) => boolean) | undefined, f: (v: V, k: K) => boolean | void): void => {
  const stack: Node<K, V>[] = []
  let x = t
  while (x !== undefined) {
    if (atLeast === undefined || atLeast(x.k)) {
      stack.push(x)
      x = x.l
    } else x = x.r
  }
  while (stack.length > 0) {
    const top = stack.pop() as Node<K, V>
    if (f(top.v, top.k) === false) return
    for (let y = top.r; y !== undefined; y = y.l) stack.push(y)
  }
}

/**
 * Visits entries in decreasing key order, from the last key for which `atMost` holds (true up
 * to some key and false above it; all keys when `undefined`), until `f` returns `false`.
 */
export const forEachDown = <K, V>(t: Tree<K, V>, atMost: ((k: K) => boolean) | undefined, f: (v: V, k: K) => boolean | void): void => {
  const stack: Node<K, V>[] = []
  let x = t
  while (x !== undefined) {
    if (atMost === undefined || atMost(x.k)) {
      stack.push(x)
      x = x.r
    } else x = x.l
  }
  while (stack.length > 0) {
    const top = stack.pop() as Node<K, V>
    if (f(top.v, top.k) === false) return
    for (let y = top.l; y !== undefined; y = y.r) stack.push(y)
  }
}

/** The values in increasing key order. */
export const values = <K, V>(t: Tree<K, V>): V[] => {
  const out: V[] = []
  const stack: Node<K, V>[] = []
  for (let x = t; x !== undefined; x = x.l) stack.push(x)
  while (stack.length > 0) {
    const top = stack.pop() as Node<K, V>
    out.push(top.v)
    for (let y = top.r; y !== undefined; y = y.l) stack.push(y)
  }
  return out
}

/** Whether every node satisfies the weight-balance invariant, sizes are right and keys are ordered. */
export const isValidTree = <K, V>(cmp: Compare<K>, t: Tree<K, V>): boolean => {
  const check = (x: Tree<K, V>, lo: K | undefined, hi: K | undefined): boolean => {
    if (x === undefined) return true
    if (lo !== undefined && cmp(x.k, lo) <= 0) return false
    if (hi !== undefined && cmp(x.k, hi) >= 0) return false
    const sl = size(x.l)
    const sr = size(x.r)
    if (x.n !== sl + sr + 1) return false
    if (sl + sr > 1 && (sl > DELTA * sr || sr > DELTA * sl)) return false
    return check(x.l, lo, x.k) && check(x.r, x.k, hi)
  }
  return check(t, undefined, undefined)
}
