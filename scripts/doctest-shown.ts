/**
 * Shown results in doc examples, and how `npm run test:examples` checks them.
 *
 * The convention: in an example, a line of code followed by a `//` comment that begins with a
 * value shows that value as the line's result:
 *
 *     countMessages(heuristic)([textMessage('user', 'Hello, world!')]) // 8
 *     last([])                                                     // none
 *     decodePart({ type: 'text', data: { text: 'hi' } })           // right({ type: 'text', text: 'hi' })
 *
 * A comment begins with a value when it begins with a number, a quote, `[`, `{`, `true`, `false`,
 * `null`, `undefined`, `NaN`, `none`, `some(`, `left(` or `right(`. The whole comment is then a
 * JavaScript expression (names of the example are in scope; `none`, `some`, `left` and `right` are
 * fp-ts's constructors), and the result must equal it by deep strict equality
 * (`assert.deepStrictEqual`). What is shown is:
 * - the expression of the statement that ends on that line (an expression may span lines above);
 * - the variable, for `const x = …` or `let x = …`;
 * - the argument, for `console.log(…)`;
 * - for `if (condition) expression`, the expression, and the condition must hold.
 *
 * A comment that begins with a value but is not one (`// 0 when the log was whole`, `// [{ … }]`)
 * is an error, so a shown result is always checked: write prose that begins with a word, on the
 * line above. Examples that are only type-checked (they `declare` what they use, or are for Deno)
 * cannot show results, since they never run.
 */

/** Whether a comment's text begins with a value, and so shows a result. */
export const showsValue = (comment: string): boolean =>
  /^(?:[-+]?\.?\d|['"`[{]|(?:true|false|null|undefined|NaN|none)\b|(?:some|left|right)\()/.test(comment.trim())

/**
 * Where a line's trailing `//` comment starts, outside strings and template literals (or -1). A line
 * that is only a comment has none.
 */
export const commentStart = (line: string): number => {
  let quote: string | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (quote !== undefined) {
      if (c === '\\') i++
      else if (c === quote) quote = undefined
      continue
    }
    if (c === "'" || c === '"' || c === '`') quote = c
    else if (c === '/' && line[i + 1] === '/') return line.slice(0, i).trim() === '' ? -1 : i
  }
  return -1
}

/** Opening minus closing brackets of a piece of code, outside strings. */
const balance = (code: string): number => {
  let n = 0
  let quote: string | undefined
  for (let i = 0; i < code.length; i++) {
    const c = code[i]
    if (quote !== undefined) {
      if (c === '\\') i++
      else if (c === quote) quote = undefined
      continue
    }
    if (c === "'" || c === '"' || c === '`') quote = c
    else if (c === '(' || c === '[' || c === '{') n++
    else if (c === ')' || c === ']' || c === '}') n--
  }
  return n
}

/** The index just after the bracket that closes the one at `open`, or -1. */
const closing = (code: string, open: number): number => {
  for (let end = open + 1; end <= code.length; end++) if (balance(code.slice(open, end)) === 0) return end
  return -1
}

/** Whether a list of arguments has more than one (a comma outside brackets and strings). */
const topLevelComma = (args: string): boolean => [...args].some((ch, n) => ch === ',' && balance(args.slice(0, n)) === 0 && !inString(args.slice(0, n)))

/** Whether the end of a piece of code is inside a string. */
const inString = (code: string): boolean => {
  let quote: string | undefined
  for (let i = 0; i < code.length; i++) {
    const c = code[i]
    if (quote !== undefined) {
      if (c === '\\') i++
      else if (c === quote) quote = undefined
    } else if (c === "'" || c === '"' || c === '`') quote = c
  }
  return quote !== undefined
}

/** Whether a shown value parses as a JavaScript expression. */
const parses = (value: string): boolean => {
  try {
    new Function(`return (${value})`)
    return true
  } catch {
    return false
  }
}

export type Shown = {
  /** the example with each shown result turned into a check, line for line */
  readonly code: string
  /** how many results it shows */
  readonly count: number
  /** results that cannot be checked, each with its 0-based line in the example */
  readonly problems: ReadonlyArray<{ readonly line: number; readonly message: string }>
}

/** The name the checks call (from scripts/doctest-assert.ts), imported by {@link CHECK_IMPORT}. */
const CHECK = '__shows'

/** The import an example with checks needs; added after its code, so line numbers stay. */
export const CHECK_IMPORT = (from: string): string =>
  `import { shows as ${CHECK}, none as __none, some as __some, left as __left, right as __right } from '${from}'`

/**
 * Turns each shown result of an example into a check that throws when the result is not the value
 * shown, keeping every line where it was (errors then point at the source). `at(n)` names line `n`.
 */
export const checkShown = (code: string, at: (line: number) => string): Shown => {
  const lines = code.split('\n')
  const problems: Array<{ line: number; message: string }> = []
  let count = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const c = commentStart(line)
    if (c < 0) continue
    const value = line.slice(c + 2).trim()
    if (!showsValue(value)) continue
    count++
    if (/…|\.\.\./.test(value) || !parses(value)) {
      problems.push({
        line: i,
        message: `the result shown, \`${value}\`, is not a JavaScript value the checker can compare (write the whole value, or prose that begins with a word)`,
      })
      continue
    }
    // the statement ends here; it starts where its brackets balance
    let start = i
    let open = balance(line.slice(0, c))
    while (open < 0 && start > 0) open += balance(lines[--start] ?? '')
    const indent = /^\s*/.exec(lines[start] ?? '')?.[0] ?? ''
    const stmt = [...lines.slice(start, i), line.slice(0, c)].join('\n').trim().replace(/;$/, '')
    const expected = `((none, some, left, right) => (${value}))(__none, __some, __left, __right), ${JSON.stringify(at(i))}`
    const declared = /^(?:const|let)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=(?!=)/.exec(stmt)
    const guarded = /^if\s*\(/.exec(stmt)
    const logged = /^console\.log\(/.exec(stmt)
    let checked: string
    if (declared !== null) checked = `${stmt}; ${CHECK}(${declared[1] ?? ''}, ${expected})`
    else if (guarded !== null) {
      const end = closing(stmt, stmt.indexOf('('))
      const condition = stmt.slice(stmt.indexOf('(') + 1, end - 1)
      checked = `${CHECK}(Boolean(${condition}), true, ${JSON.stringify(`${at(i)} (its condition)`)}); if (${condition}) ${CHECK}(${
        stmt.slice(end).trim()
      }, ${expected})`
    } else if (logged !== null && closing(stmt, stmt.indexOf('(')) === stmt.length && !topLevelComma(stmt.slice('console.log('.length, -1)))
      checked = `${CHECK}(${stmt.slice('console.log('.length, -1)}, ${expected})`
    else checked = `${CHECK}(${stmt}, ${expected})`
    const out = `${indent}${checked}`.split('\n')
    lines.splice(start, i - start + 1, ...out)
  }
  return { code: lines.join('\n'), count, problems }
}
