/**
 * A filter over a prepared history's lower-cased texts: each segment cut into blocks of 2,048
 * characters, each block with a Bloom filter of the three-character runs starting in it, so that a
 * plain-text search scans only the blocks that may hold its text, not every character. Made on the
 * first search of an index, and kept for as long as the index is.
 *
 * @module
 */
import type { HistoryIndex } from './history-index.ts'

/** Characters of a block, a power of two: `1 << BLOCK_BITS`. */
const BLOCK_BITS = 11
const BLOCK = 1 << BLOCK_BITS
/** Bits of a block's filter (a power of two), as 32-bit words. */
const WORDS = 128
const SHIFT = 32 - Math.log2(WORDS * 32)

/** The bit of the run `a b c`: a hash of the three code units. */
const bitOf = (a: number, b: number, c: number): number => Math.imul(Math.imul(a, 0x10001) ^ Math.imul(b, 0x3f) ^ c, 0x9e3779b1) >>> SHIFT

/** The filters of each segment: `WORDS` words a block, blocks in order. */
type Filters = ReadonlyArray<Uint32Array>

const made = new WeakMap<HistoryIndex, Filters>()

const filtersOf = (index: HistoryIndex): Filters => {
  const known = made.get(index)
  if (known !== undefined) return known
  const out = index.segments.map((seg) => {
    const s = seg.lower
    const bits = new Uint32Array(Math.ceil(s.length / BLOCK) * WORDS)
    let a = s.charCodeAt(0)
    let b = s.charCodeAt(1)
    for (let i = 0; i + 2 < s.length; i++) {
      const c = s.charCodeAt(i + 2)
      const bit = bitOf(a, b, c)
      const w = (i >>> BLOCK_BITS) * WORDS + (bit >>> 5)
      bits[w] = (bits[w] as number) | (1 << (bit & 31))
      a = b
      b = c
    }
    return bits
  })
  made.set(index, out)
  return out
}

/**
 * The ranges of segment positions where `needle` (three characters or more) may start, in each
 * segment, ascending and apart: the blocks whose filter, or the next block's, holds every
 * three-character run of the needle (a run that starts in the block after the occurrence's is
 * in that block's filter). `undefined` for a needle too short (or too long) to filter with.
 */
export const mayStart = (index: HistoryIndex, needle: string): ReadonlyArray<ReadonlyArray<readonly [number, number]>> | undefined => {
  // a needle longer than a block may have runs two blocks on
  if (needle.length < 3 || needle.length > BLOCK) return undefined
  const want: number[] = []
  for (let i = 0; i + 2 < needle.length; i++) want.push(bitOf(needle.charCodeAt(i), needle.charCodeAt(i + 1), needle.charCodeAt(i + 2)))
  return filtersOf(index).map((bits, g) => {
    const length = (index.segments[g] as HistoryIndex['segments'][number]).lower.length
    const blocks = bits.length / WORDS
    const ranges: Array<[number, number]> = []
    for (let k = 0; k < blocks; k++) {
      let all = true
      for (const bit of want) {
        const w = bit >>> 5
        const m = 1 << (bit & 31)
        if (((bits[k * WORDS + w] as number) & m) === 0 && (k + 1 >= blocks || ((bits[(k + 1) * WORDS + w] as number) & m) === 0)) {
          all = false
          break
        }
      }
      if (!all) continue
      const from = k * BLOCK
      const to = Math.min(length, from + BLOCK)
      const last = ranges[ranges.length - 1]
      if (last !== undefined && last[1] === from) last[1] = to
      else ranges.push([from, to])
    }
    return ranges
  })
}
