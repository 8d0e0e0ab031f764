/** A strict reader of the pages `renderHtml` writes: tags must nest, and nothing but tags and text may appear. */
import { expect } from 'vitest'

/** An element of the page: its tag, attributes, children, and its text (entities as written). */
export type Node = { tag: string; attrs: Record<string, string>; children: Node[]; text: string }
const VOID = new Set(['meta', 'img', 'br', 'hr', 'link', 'input'])

/** The page as a tree, read tag by tag; throws on a tag closed out of order. */
export const tree = (html: string): Node => {
  const root: Node = { tag: '#root', attrs: {}, children: [], text: '' }
  const stack = [root]
  const re = /<(\/?)([a-zA-Z][\w-]*)((?:\s+[\w-]+(?:="[^"]*")?)*)\s*>|<!doctype html>|([^<]+)/gy
  let m: RegExpExecArray | null
  let at = 0
  while ((m = re.exec(html)) !== null) {
    at = re.lastIndex
    const top = stack[stack.length - 1] as Node
    if (m[4] !== undefined) {
      for (const s of stack) s.text += m[4]
      continue
    }
    if (m[2] === undefined) continue
    const tag = m[2].toLowerCase()
    if (m[1] === '/') {
      if (top.tag !== tag) throw new Error(`</${tag}> closes <${top.tag}> at ${at}`)
      stack.pop()
      continue
    }
    const attrs: Record<string, string> = {}
    for (const a of (m[3] ?? '').matchAll(/([\w-]+)(?:="([^"]*)")?/g)) attrs[a[1] as string] = a[2] ?? ''
    const node: Node = { tag, attrs, children: [], text: '' }
    top.children.push(node)
    if (!VOID.has(tag)) stack.push(node)
  }
  if (at !== html.length) throw new Error(`cannot read the page at ${at}: ${html.slice(at, at + 40)}`)
  expect(stack.map((n) => n.tag)).toEqual(['#root'])
  return root
}
export const all = (n: Node, f: (x: Node) => boolean): Node[] => [...(f(n) ? [n] : []), ...n.children.flatMap((c) => all(c, f))]
