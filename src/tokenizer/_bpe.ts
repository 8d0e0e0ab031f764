/**
 * An exact byte-pair count in n·log n time: the same pre-tokens and the same merges as
 * gpt-tokenizer (its own split pattern, its own ranks, lowest rank first and leftmost on a tie),
 * with the merges taken from a heap instead of a scan of every pair after every merge, which makes
 * the tokenizer quadratic in the length of a pre-token. It is how every named estimator counts
 * (private: not exported from the package).
 *
 * @module
 */

/** A tokenizer's mergeable ranks as gpt-tokenizer ships them: the token's text, or its bytes. */
export type RawRanks = ReadonlyArray<string | ReadonlyArray<number> | undefined>

/** Every token's bytes, found by hashing a byte range: no string is built per lookup. */
type RankTable = {
  readonly bytes: Uint8Array
  /** Start of each rank's bytes in `bytes`; `start[r + 1] - start[r]` is its length. */
  readonly start: Int32Array
  /** Open addressing: rank + 1, or 0 for an empty slot. */
  readonly slots: Int32Array
  readonly mask: number
}

const hashOf = (b: Uint8Array, from: number, to: number): number => {
  let h = 0x811c9dc5
  for (let i = from; i < to; i++) h = Math.imul(h ^ (b[i] as number), 0x01000193)
  return h >>> 0
}

/**
 * Whether `b[from..to)` is well-formed UTF-8 (no overlong form, no surrogate, nothing past
 * U+10FFFF): the bytes gpt-tokenizer looks up by their text rather than by their bytes.
 */
const isUtf8 = (b: Uint8Array, from: number, to: number): boolean => {
  for (let i = from; i < to;) {
    const c = b[i] as number
    if (c < 0x80) {
      i++
      continue
    }
    const n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0
    if (n === 0 || i + n > to) return false
    let cp = c & (n === 2 ? 0x1f : n === 3 ? 0x0f : 0x07)
    for (let k = 1; k < n; k++) {
      const d = b[i + k] as number
      if ((d & 0xc0) !== 0x80) return false
      cp = (cp << 6) | (d & 0x3f)
    }
    if ((n === 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n === 4 && (cp < 0x10000 || cp > 0x10ffff))) return false
    i += n
  }
  return true
}

/** The UTF-8 length of a string without lone surrogates (the tokens' texts have none). */
const utf8Length = (s: string): number => {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) continue
    n += c < 0x800 ? 1 : 2 // a surrogate pair: two units, four bytes
    if (c >= 0xd800 && c <= 0xdbff) i++
  }
  return n
}

const buildTable = (ranks: RawRanks): RankTable => {
  const n = ranks.length
  const start = new Int32Array(n + 1)
  const texts: string[] = []
  let size = 0
  for (let r = 0; r < n; r++) {
    start[r] = size
    const v = ranks[r]
    if (typeof v === 'string') {
      texts.push(v)
      size += utf8Length(v)
    } else if (v !== undefined) size += v.length
  }
  start[n] = size
  // The texts encoded in one call, then each byte entry copied to its place after them.
  const all = texts.join('')
  const bytes = new Uint8Array(size + all.length * 3)
  const scratch = bytes.subarray(size)
  const written = new TextEncoder().encodeInto(all, scratch).written
  let at = 0
  for (let r = 0; r < n; r++) {
    const v = ranks[r]
    const from = start[r] as number
    if (typeof v === 'string') {
      const len = (start[r + 1] as number) - from
      bytes.copyWithin(from, size + at, size + at + len)
      at += len
    } else if (v !== undefined) { for (let k = 0; k < v.length; k++) bytes[from + k] = v[k] as number }
  }
  if (at !== written) throw new Error(`Cannot index the ranks: ${written} bytes encoded, ${at} expected`)
  let cap = 1
  while (cap < n * 2) cap *= 2
  const slots = new Int32Array(cap)
  const mask = cap - 1
  for (let r = 0; r < n; r++) {
    const from = start[r] as number
    const to = start[r + 1] as number
    // gpt-tokenizer looks well-formed UTF-8 up by its text, and finds no byte entry that way.
    if (to === from || (typeof ranks[r] !== 'string' && isUtf8(bytes, from, to))) continue
    let i = hashOf(bytes, from, to) & mask
    while (slots[i] !== 0) i = (i + 1) & mask
    slots[i] = r + 1
  }
  return { bytes: bytes.slice(0, size), start, slots, mask }
}

/** The rank of the bytes `b[from..to)`, or -1 when they are not a token. */
const rankOf = (t: RankTable, b: Uint8Array, from: number, to: number): number => {
  const len = to - from
  let i = hashOf(b, from, to) & t.mask
  for (;;) {
    const s = t.slots[i] as number
    if (s === 0) return -1
    const r = s - 1
    const at = t.start[r] as number
    if ((t.start[r + 1] as number) - at === len) {
      let k = 0
      while (k < len && t.bytes[at + k] === b[from + k]) k++
      if (k === len) return r
    }
    i = (i + 1) & t.mask
  }
}

/**
 * The rank of a pair as gpt-tokenizer's merge loop finds it: well-formed UTF-8 is looked up by its
 * text, decoded with a `TextDecoder` that drops a leading byte-order mark, so a range that starts
 * with U+FEFF's bytes is looked up without them.
 */
const pairRank = (t: RankTable, b: Uint8Array, from: number, to: number): number =>
  b[from] === 0xef && b[from + 1] === 0xbb && b[from + 2] === 0xbf && to - from >= 3 && isUtf8(b, from, to)
    ? to - from === 3 ? -1 : rankOf(t, b, from + 3, to)
    : rankOf(t, b, from, to)

// --- merging ---

const POS = 2 ** 32 // heap keys are rank × 2³² + position: lowest rank first, leftmost on a tie

/** Scratch arrays, grown as needed and reused from piece to piece. */
type Scratch = { next: Int32Array; prev: Int32Array; rank: Int32Array; heap: Float64Array }

const grow = (s: Scratch, m: number): void => {
  if (s.next.length > m) return
  const cap = Math.max(m + 1, s.next.length * 2)
  s.next = new Int32Array(cap)
  s.prev = new Int32Array(cap)
  s.rank = new Int32Array(cap)
  s.heap = new Float64Array(cap)
}

/** Adds `key` to the binary min-heap `heap[0..size)`, which then holds `size + 1` keys. */
const heapPush = (heap: Float64Array, size: number, key: number): void => {
  let i = size
  while (i > 0) {
    const up = (i - 1) >> 1
    const k = heap[up] as number
    if (k <= key) break
    heap[i] = k
    i = up
  }
  heap[i] = key
}

/** Takes the least key from the binary min-heap `heap[0..size)`, which then holds `size - 1` keys. */
const heapPop = (heap: Float64Array, size: number): number => {
  const top = heap[0] as number
  const n = size - 1
  const last = heap[n] as number
  let i = 0
  for (;;) {
    let c = 2 * i + 1
    if (c >= n) break
    if (c + 1 < n && (heap[c + 1] as number) < (heap[c] as number)) c++
    if ((heap[c] as number) >= last) break
    heap[i] = heap[c] as number
    i = c
  }
  heap[i] = last
  return top
}

/**
 * The number of tokens byte-pair merging leaves of `b[0..m)`: the same merges in the same order as
 * tiktoken's (the pair of lowest rank, leftmost first, until no pair is a token), the lowest pair
 * found in a binary heap whose stale entries are skipped when they surface. O(m log m).
 */
const mergeCount = (t: RankTable, s: Scratch, b: Uint8Array, m: number): number => {
  if (m < 2) return m
  grow(s, m)
  const { next, prev, rank, heap } = s
  // the heap's functions are module-level, not closures over `size`: one is called per piece that is no token
  let size = 0
  for (let i = 0; i < m; i++) {
    next[i] = i + 1
    prev[i] = i - 1
    const r = i + 2 <= m ? pairRank(t, b, i, i + 2) : -1
    rank[i] = r
    if (r >= 0) heapPush(heap, size++, r * POS + i)
  }
  let parts = m
  while (size > 0) {
    const key = heapPop(heap, size--)
    const r = Math.floor(key / POS)
    const i = key - r * POS
    if (rank[i] !== r) continue // stale: the part merged away or its pair changed since
    const j = next[i] as number
    const k = next[j] as number
    next[i] = k
    rank[j] = -1
    if (k < m) prev[k] = i
    parts--
    const ri = k < m ? pairRank(t, b, i, next[k] as number) : -1
    rank[i] = ri
    if (ri >= 0) heapPush(heap, size++, ri * POS + i)
    if (i > 0) {
      const p = prev[i] as number
      const rp = pairRank(t, b, p, k)
      rank[p] = rp
      if (rp >= 0) heapPush(heap, size++, rp * POS + p)
    }
  }
  return parts
}

// --- counting ---

/** Whether a string holds a lone surrogate (which no token's text can match). */
const hasLoneSurrogate = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0xd800 || c > 0xdfff) continue
    if (c <= 0xdbff) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++
        continue
      }
    }
    return true
  }
  return false
}

// --- a small table in front of the ranks ---

/** ASCII pieces of up to this many characters are remembered with their count (four to a 32-bit word). */
const FRONT_CHARS = 16
/** Entries of the front table (a power of two): direct-mapped by the piece's hash, 96 KB in all. */
const FRONT_SLOTS = 4096
/** An entry: the piece's length, its characters packed in four words, its count. */
const FRONT_WIDTH = 6

/**
 * An exact token counter for a gpt-tokenizer encoding, in n·log n time on any text: `text`
 * is split with the encoding's own pattern (`split`, a global Unicode regular expression) and
 * each pre-token is counted as gpt-tokenizer counts it with no special token allowed: one when
 * its text is a token, else the parts byte-pair merging leaves. Builds its lookup table from
 * `ranks` on first use (a few megabytes for `o200k_base`: the tokens' bytes, their offsets
 * and a hash table).
 *
 * The pattern is run sticky and tested rather than matched, and the pieces are read in place, so
 * that counting allocates nothing for most text. A short ASCII piece (most of any text in a Latin
 * script, code or JSON) is looked up first in a small table of the pieces counted last, which stays
 * in the processor's cache where the rank table (megabytes) does not; an entry holds the piece
 * itself, so a hit is exact. Text the pattern does not match (none of the encodings' patterns
 * leaves any) is skipped, as gpt-tokenizer's `matchAll` skips it.
 */
export const exactCounter = (ranks: RawRanks, split: RegExp): (text: string) => number => {
  let table: RankTable | undefined
  const flags = split.flags.replace('g', '')
  const sticky = new RegExp(split.source, `${flags}y`)
  const anywhere = new RegExp(split.source, `${flags}g`)
  const encoder = new TextEncoder()
  const scratch: Scratch = { next: new Int32Array(0), prev: new Int32Array(0), rank: new Int32Array(0), heap: new Float64Array(0) }
  let bytes = new Uint8Array(256)
  const front = new Int32Array(FRONT_SLOTS * FRONT_WIDTH)

  /** Any piece, by its UTF-8 bytes. */
  const countBytes = (t: RankTable, piece: string): number => {
    if (bytes.length < piece.length * 3) bytes = new Uint8Array(Math.max(piece.length * 3, bytes.length * 2))
    const n = encoder.encodeInto(piece, bytes).written
    // gpt-tokenizer first looks the piece's text up among the tokens' texts, which hold no lone
    // surrogate; a piece with one (encoded as U+FFFD) is always merged.
    return rankOf(t, bytes, 0, n) >= 0 && !hasLoneSurrogate(piece) ? 1 : mergeCount(t, scratch, bytes, n)
  }

  /** `text[from..to)`, of 2 to `FRONT_CHARS` characters: through the front table when it is ASCII. */
  const countShort = (t: RankTable, text: string, from: number, to: number): number => {
    let h = 0x811c9dc5
    let w0 = 0
    let w1 = 0
    let w2 = 0
    let w3 = 0
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i)
      if (c >= 0x80) return countBytes(t, text.slice(from, to))
      h = Math.imul(h ^ c, 0x01000193)
      const k = i - from
      const bits = c << ((k & 3) << 3)
      if (k < 4) w0 |= bits
      else if (k < 8) w1 |= bits
      else if (k < 12) w2 |= bits
      else w3 |= bits
    }
    const len = to - from
    const e = ((h >>> 0) & (FRONT_SLOTS - 1)) * FRONT_WIDTH
    if (front[e] === len && front[e + 1] === w0 && front[e + 2] === w1 && front[e + 3] === w2 && front[e + 4] === w3) return front[e + 5] as number
    // ASCII: the bytes are the characters, and FNV-1a over them is the rank table's hash
    for (let i = 0; i < len; i++) bytes[i] = text.charCodeAt(from + i)
    const n = rankOf(t, bytes, 0, len) >= 0 ? 1 : mergeCount(t, scratch, bytes, len)
    front[e] = len
    front[e + 1] = w0
    front[e + 2] = w1
    front[e + 3] = w2
    front[e + 4] = w3
    front[e + 5] = n
    return n
  }

  return (text) => {
    const t = (table ??= buildTable(ranks))
    let count = 0
    let at = 0
    while (at < text.length) {
      sticky.lastIndex = at
      if (!sticky.test(text)) {
        anywhere.lastIndex = at
        const next = anywhere.exec(text)
        if (next === null) break
        at = next.index
        continue
      }
      const to = sticky.lastIndex
      if (to <= at) throw new Error(`The split pattern matched nothing at ${at}`)
      const len = to - at
      if (len === 1 && text.charCodeAt(at) < 0x80) count++ // every ASCII character is a token
      else if (len <= FRONT_CHARS) count += countShort(t, text, at, to)
      else count += countBytes(t, text.slice(at, to))
      at = to
    }
    return count
  }
}
