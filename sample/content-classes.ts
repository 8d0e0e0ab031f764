/**
 * Text of each content class a tool result can hold, generated from a seed: what the estimators'
 * floor is tested on (`test/tokens/floor.test.ts`) and what `npm run bench tokens` reports the
 * over-count of. Word lists are short and the text is not meant to read well: it has the
 * characters, words and runs of each class, in the proportions real text has them.
 */
import { prng, sampleText } from './session.ts'

type Rng = ReturnType<typeof prng>

/** The content classes, each a kind of text a tool can return. */
export const CONTENT_CLASSES = [
  'prose',
  'prose-european',
  'code',
  'json',
  'logs',
  'base64',
  'hex',
  'emoji',
  'emoji-text',
  'cjk',
  'cjk-rare',
  'arabic',
  'devanagari',
  'thai',
  'cyrillic',
  'korean',
  'whitespace',
  'symbols',
] as const
export type ContentClass = (typeof CONTENT_CLASSES)[number]

const EUROPEAN = [
  'über', 'größer', 'Straße', 'müssen', 'Änderung', 'prüfen', 'déjà', 'élève', 'où', 'façon', 'garçon', 'très', 'être', 'problème',
  'señor', 'niño', 'mañana', 'acción', 'está', 'también', 'canción', 'perché', 'città', 'però', 'São', 'não', 'ação', 'coração',
  'który', 'źródło', 'łączy', 'część', 'český', 'říká', 'věc', 'søster', 'være', 'år', 'the', 'file', 'und', 'der', 'la', 'el',
]
const ARABIC = ['السلام', 'عليكم', 'الملف', 'الرسالة', 'المستخدم', 'البيانات', 'الخادم', 'خطأ', 'في', 'من', 'إلى', 'على', 'هذا', 'كان', 'الاختبار', 'النتيجة', 'تم', 'تحديث', 'قاعدة', 'الطلب', 'مكتبة', 'البرنامج', 'نظام', 'جديد']
const DEVANAGARI = ['नमस्ते', 'फ़ाइल', 'संदेश', 'उपयोगकर्ता', 'डेटा', 'सर्वर', 'त्रुटि', 'में', 'से', 'को', 'पर', 'यह', 'था', 'परीक्षण', 'परिणाम', 'अद्यतन', 'किया', 'गया', 'अनुरोध', 'पुस्तकालय', 'कार्यक्रम', 'प्रणाली', 'नया', 'है']
const THAI = ['สวัสดี', 'ไฟล์', 'ข้อความ', 'ผู้ใช้', 'ข้อมูล', 'เซิร์ฟเวอร์', 'ข้อผิดพลาด', 'ใน', 'จาก', 'ถึง', 'บน', 'นี้', 'เป็น', 'การทดสอบ', 'ผลลัพธ์', 'อัปเดต', 'แล้ว', 'คำขอ', 'ห้องสมุด', 'โปรแกรม', 'ระบบ', 'ใหม่', 'ครับ', 'ค่ะ']
const CYRILLIC = ['привет', 'файл', 'сообщение', 'пользователь', 'данные', 'сервер', 'ошибка', 'в', 'из', 'к', 'на', 'это', 'был', 'тест', 'результат', 'обновлено', 'запрос', 'библиотека', 'программа', 'система', 'новый', 'и', 'не', 'что', 'Москва', 'Київ', 'їжак', 'ґанок', 'Србија', 'ђак']
const KOREAN = ['안녕하세요', '파일', '메시지', '사용자', '데이터', '서버', '오류', '에서', '으로', '위에', '이것은', '였다', '테스트', '결과', '업데이트', '되었습니다', '요청', '라이브러리', '프로그램', '시스템', '새로운', '그리고', '하지만', '똠방각하', '뷁', '쀍', '퓛']
const HANZI = '的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明'
const KANA = 'あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソタチツテトナニヌネノ'
const CJK_PUNCT = '。、，！？「」（）'
const EMOJI_BMP = ['☀️', '☁️', '☔', '☕', '⚡', '⚠️', '✅', '❌', '❤️', '✨', '⭐', '⌛', '✈️', '✏️', '♻️', '⚙️']
const SKIN = ['🏻', '🏼', '🏽', '🏾', '🏿']
const ZWJ_TAILS = [0x1f4bb, 0x1f52c, 0x1f680, 0x1f373, 0x1f3a8, 0x1f692, 0x2695, 0x2696, 0x1f33e, 0x1f3eb]
const PEOPLE = [0x1f468, 0x1f469, 0x1f9d1, 0x1f466, 0x1f467]
const SYMBOLS = '§©®°±¶·×÷–—•…€£¥™←→↑↓⇒∀∃∈∑√∞≈≠≤≥─│┌┐└┘├┤┬┴┼═║╔╗▲▼◆●○★☆♠♣♥♦'

const from = (cp: number): string => String.fromCodePoint(cp)
const chars = (r: Rng, alphabet: string, n: number): string => {
  const a = [...alphabet]
  let s = ''
  for (let i = 0; i < n; i++) s += r.pick(a)
  return s
}
const words = (r: Rng, list: ReadonlyArray<string>, n: number, sep = ' '): string => {
  const out: string[] = []
  for (let i = 0; i < n; i++) out.push(r.pick(list))
  return out.join(sep)
}

/** One emoji as people type them: a common one, with a skin tone, a ZWJ sequence, a flag, a keycap or a recent one. */
const emoji = (r: Rng): string => {
  switch (r.int(0, 9)) {
    case 0:
    case 1:
      return from(r.int(0x1f600, 0x1f64f)) // emoticons
    case 2:
      return from(r.int(0x1f300, 0x1f5ff)) // pictographs
    case 3:
      return from(r.int(0x1f680, 0x1f6ff)) // transport
    case 4:
      return from(r.int(0x1f900, 0x1f9ff)) // supplemental
    case 5:
      return from(r.int(0x1fa70, 0x1faf8)) // symbols and pictographs extended-A (recent)
    case 6:
      return from(r.pick([0x1f44d, 0x1f44b, 0x1f64f, 0x1f590, 0x1f926, 0x1f937])) + r.pick(SKIN)
    case 7:
      return from(r.pick(PEOPLE)) + (r.next() < 0.5 ? r.pick(SKIN) : '') + '\u200d' + from(r.pick(ZWJ_TAILS)) + (r.next() < 0.3 ? '\ufe0f' : '')
    case 8:
      return from(0x1f1e6 + r.int(0, 25)) + from(0x1f1e6 + r.int(0, 25)) // a flag
    default:
      return r.next() < 0.3 ? `${r.int(0, 9)}\ufe0f\u20e3` : r.pick(EMOJI_BMP)
  }
}

/** A rare ideograph: CJK Extension A (three UTF-8 bytes), B or C–F (four). */
const rareIdeograph = (r: Rng): string => {
  const x = r.next()
  return from(x < 0.4 ? r.int(0x3400, 0x4dbf) : x < 0.85 ? r.int(0x20000, 0x2a6df) : r.int(0x2a700, 0x2ebe0))
}

const base64 = (r: Rng, n: number): string => {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  let s = ''
  for (let i = 1; i <= n; i++) s += i % 77 === 0 ? '\n' : A[r.int(0, 63)]
  return s
}
const hex = (r: Rng, n: number): string => {
  const lines: string[] = []
  let len = 0
  for (let i = 0; len < n; i++) {
    const k = r.int(0, 2)
    const bytes = Array.from({ length: 16 }, () => r.int(0, 255).toString(16).padStart(2, '0'))
    const line = k === 0 ? `${(i * 16).toString(16).padStart(8, '0')}: ${bytes.join(' ')}` : k === 1 ? `commit ${chars(r, '0123456789abcdef', 40)}` : `sha256:${chars(r, '0123456789abcdef', 64)}`
    lines.push(line)
    len += line.length + 1
  }
  return lines.join('\n')
}

/** Lines made by `line` until the text reaches `n` UTF-16 code units. */
const lines = (n: number, line: () => string, join = '\n'): string => {
  const out: string[] = []
  let len = 0
  while (len < n) {
    const l = line()
    out.push(l)
    len += l.length + join.length
  }
  return out.join(join)
}

/** Text of one content class, about `n` UTF-16 code units long, the same for the same `seed`. */
export const contentSample = (cls: ContentClass, seed: number, n: number): string => {
  const r = prng(seed)
  switch (cls) {
    case 'prose':
      return sampleText(r, 'prose', n)
    case 'code':
      return sampleText(r, 'code', n)
    case 'json':
      return sampleText(r, 'json', n)
    case 'logs':
      return sampleText(r, 'logs', n)
    case 'cjk':
      return lines(n, () => (r.next() < 0.5 ? sampleText(r, 'cjk', 60) : chars(r, r.next() < 0.7 ? HANZI : KANA, r.int(4, 30)) + r.pick([...CJK_PUNCT])))
    case 'prose-european':
      return lines(n, () => `${words(r, EUROPEAN, r.int(6, 18))}.`)
    case 'base64':
      return base64(r, n)
    case 'hex':
      return hex(r, n)
    case 'emoji':
      return lines(n, () => Array.from({ length: r.int(1, 12) }, () => emoji(r)).join(r.next() < 0.5 ? '' : ' '))
    case 'emoji-text':
      return lines(n, () => `${sampleText(r, 'prose', 40)} ${emoji(r)}${r.next() < 0.5 ? emoji(r) : ''}`)
    case 'cjk-rare':
      return lines(n, () => Array.from({ length: r.int(4, 30) }, () => rareIdeograph(r)).join('') + (r.next() < 0.5 ? '。' : ''))
    case 'arabic':
      return lines(n, () => `${words(r, ARABIC, r.int(5, 15))}.`)
    case 'devanagari':
      return lines(n, () => `${words(r, DEVANAGARI, r.int(5, 15))}।`)
    case 'thai':
      return lines(n, () => words(r, THAI, r.int(5, 15), r.next() < 0.7 ? '' : ' '))
    case 'cyrillic':
      return lines(n, () => `${words(r, CYRILLIC, r.int(5, 15))}.`)
    case 'korean':
      return lines(n, () => `${words(r, KOREAN, r.int(4, 12))}.`)
    case 'whitespace':
      return lines(n, () => {
        const indent = r.pick([' ', '  ', '\t', '    ', '\u3000', '\u00a0'])
        const gap = ' '.repeat(r.int(2, 40))
        return `${indent.repeat(r.int(0, 12))}${r.pick(['key', 'value', '|', '-', 'x'])}${gap}${r.int(0, 999)}${r.next() < 0.3 ? '\n'.repeat(r.int(1, 6)) : ''}`
      })
    case 'symbols':
      return lines(n, () => chars(r, SYMBOLS, r.int(1, 40)) + (r.next() < 0.5 ? ' ' + sampleText(r, 'prose', 30) : ''))
  }
}
