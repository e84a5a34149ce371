// Lexical signals in the prompt: audience, length, tone, purpose and languages.
// Each detector walks the token list once; phrases are sliced from the original text verbatim.
import {
  AUDIENCE_NOUNS,
  FENCE_ONLY_LANGUAGE_ALIASES,
  HUMAN_LANGUAGES,
  IMPERATIVE_VERBS,
  LENGTH_QUALIFIERS,
  LENGTH_UNITS,
  LENGTH_WORDS,
  NEGATIONS,
  NUMBER_WORDS,
  PHRASE_STOPWORDS,
  PROGRAMMING_LANGUAGES,
  TONE_WORDS,
} from './lexicon'
import { type Block, PhraseSet, type Token, type Tokenized, truncateAtWord, unique } from './text'

const DETERMINERS = new Set(['a', 'an', 'the', 'my', 'our', 'your', 'their', 'his', 'her', 'some', 'all', 'other'])
const EXPLICIT_AUDIENCE = new PhraseSet([
  'audience is',
  'audience are',
  'aimed at',
  'targeted at',
  'targeting',
  'geared towards',
  'geared toward',
  'intended for',
  'readers are',
])
const LIKE_IM_FIVE = new PhraseSet(["i'm five", "i'm 5", 'i am five', 'i am 5'])

const PHRASE_BREAKS = new Set([',', '.', ';', ':', '!', '?', '(', ')', '\n', '"', '“', '”'])

/** True when the gap between two tokens holds punctuation that ends a phrase. */
function breaksPhrase(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (PHRASE_BREAKS.has(text[i] ?? '')) return true
  return false
}

/** Tokens after index `from` up to the next punctuation or stopword, at most `max` of them. */
function phraseAfter(text: string, tokens: readonly Token[], from: number, max: number, stopwords: ReadonlySet<string> = PHRASE_STOPWORDS): Token[] {
  const phrase: Token[] = []
  for (let j = from; j < tokens.length && phrase.length < max; j++) {
    const token = tokens[j]
    const previous = tokens[j - 1]
    if (!token || (previous && j > from && breaksPhrase(text, previous.end, token.start))) break
    if (j > from && stopwords.has(token.word)) break
    phrase.push(token)
  }
  return phrase
}

const slice = (text: string, phrase: readonly Token[]) =>
  phrase.length === 0 ? '' : text.slice(phrase[0]?.start ?? 0, phrase[phrase.length - 1]?.end ?? 0)

function isAudienceNoun(word: string): boolean {
  return AUDIENCE_NOUNS.has(word) || /^\d+-year-olds?$/.test(word)
}

/** "for complete beginners", "to my manager", "audience: CFOs", "explain like I'm five". */
export function detectAudience({ text, tokens, words }: Tokenized): string | null {
  for (let i = 0; i < tokens.length; i++) {
    const word = words[i] ?? ''
    if (word === 'eli5' || (word === 'like' && LIKE_IM_FIVE.matchAt(words, i + 1))) {
      return "a five-year-old (explain like I'm five)"
    }
    // "Audience: busy CFOs" — a label followed by a colon, or an explicit phrase.
    const labelled = word === 'audience' && text.slice(tokens[i]?.end, tokens[i + 1]?.start).includes(':')
    const explicit = labelled ? ['audience'] : EXPLICIT_AUDIENCE.matchAt(words, i)
    if (explicit) {
      const phrase = phraseAfter(text, tokens, i + explicit.length, 8)
      if (phrase.length > 0) return slice(text, phrase)
    }
    if (word !== 'for' && word !== 'to') continue
    const phrase = phraseAfter(text, tokens, i + 1, 6)
    const nounIndex = phrase.findIndex((token) => isAudienceNoun(token.word))
    const first = phrase[0]?.word ?? ''
    const looksLikeVerb = IMPERATIVE_VERBS.has(first) || first.endsWith('ing')
    if (nounIndex === -1 || nounIndex > 2 || looksLikeVerb) continue
    if (nounIndex > 0 && !DETERMINERS.has(first) && word === 'to') continue
    // Extend over adjacent audience words: "non-technical stakeholders".
    let end = nounIndex
    while (isAudienceNoun(phrase[end + 1]?.word ?? '')) end++
    return slice(text, phrase.slice(0, end + 1))
  }
  return null
}

function isNumberToken(word: string): boolean {
  return /^\d[\d,.]*$/.test(word) || NUMBER_WORDS.has(word)
}

/** Numeric lengths ("at most 200 words", "an 800-word", "3 bullet points") and words like "concise". */
export function detectLengths({ text, tokens, words }: Tokenized): string[] {
  const found: string[] = []
  for (let i = 0; i < tokens.length; i++) {
    const word = words[i] ?? ''
    const hyphenated = /^(\d+)-(word|page|minute|sentence|paragraph|line|character)s?$/.exec(word)
    if (hyphenated) {
      found.push(text.slice(tokens[i]?.start ?? 0, tokens[i]?.end ?? 0)) // "800-word", as written
      continue
    }
    let unitIndex = i + 1
    if (isNumberToken(word) && (words[unitIndex] === 'bullet' || words[unitIndex] === 'short')) unitIndex++
    if (!isNumberToken(word) || !LENGTH_UNITS.has(words[unitIndex] ?? '')) continue
    // "10 tagline ideas", "3 short bullet points": the whole unit
    while (
      unitIndex + 1 < tokens.length &&
      LENGTH_UNITS.has(words[unitIndex + 1] ?? '') &&
      !breaksPhrase(text, tokens[unitIndex]!.end, tokens[unitIndex + 1]!.start)
    )
      unitIndex++
    const qualifierStart = findQualifierStart(words, i)
    found.push(text.slice(tokens[qualifierStart]?.start ?? 0, tokens[unitIndex]?.end ?? 0))
    i = unitIndex
  }
  for (let i = 0; i < tokens.length; i++) {
    const word = words[i] ?? ''
    // "the brief" is a document, not a length.
    // "the brief" is a document, not a length.
    if (LENGTH_WORDS.has(word) && !isNegated(words, i) && !(word === 'brief' && DETERMINERS.has(words[i - 1] ?? ''))) {
      found.push(word)
    }
  }
  return unique(found, (phrase) => phrase.toLowerCase()).slice(0, 3)
}

function findQualifierStart(words: readonly string[], numberIndex: number): number {
  for (let size = 3; size >= 1; size--) {
    const start = numberIndex - size
    if (start >= 0 && LENGTH_QUALIFIERS.matchAt(words, start)?.length === size) return start
  }
  return numberIndex
}

function isNegated(words: readonly string[], index: number): boolean {
  return NEGATIONS.has(words[index - 1] ?? '') || NEGATIONS.has(words[index - 2] ?? '')
}

/** Tone words that are asked for, not ruled out ("not too formal" is skipped). */
export function detectTones({ words }: Tokenized): string[] {
  const tones = words.filter((word, i) => TONE_WORDS.has(word) && !isNegated(words, i))
  return unique(tones).slice(0, 4)
}

const PURPOSE_OPENERS = new PhraseSet([
  'so that',
  'in order to',
  'the goal is',
  'my goal is',
  'our goal is',
  'the purpose is',
  'it will be used',
  "it'll be used",
])

/** Why the user wants the result, if they said so ("so that new hires can onboard"). */
export function detectPurpose({ text, tokens, words }: Tokenized): string | null {
  for (let i = 0; i < tokens.length; i++) {
    if (!PURPOSE_OPENERS.matchAt(words, i)) continue
    const start = tokens[i]?.start ?? 0
    const end = text.slice(start).search(/[.;!?\n]/)
    return truncateAtWord(text.slice(start, end === -1 ? undefined : start + end).trim(), 200)
  }
  return null
}

/** Target language of a translation: "translate … into Japanese". */
export function detectTargetLanguage({ words }: Tokenized): string | null {
  for (let i = 0; i + 1 < words.length; i++) {
    const word = words[i]
    const next = words[i + 1] ?? ''
    if ((word === 'into' || word === 'to' || word === 'in') && HUMAN_LANGUAGES.has(next)) {
      return next.charAt(0).toUpperCase() + next.slice(1)
    }
  }
  return null
}

/** The programming language: a code-fence info string wins over a word in the prose. */
export function detectProgrammingLanguage(blocks: readonly Block[], { words }: Tokenized): string | null {
  for (const block of blocks) {
    const fromFence = block.code ? PROGRAMMING_LANGUAGES.get(block.fenceInfo) : undefined
    if (fromFence) return fromFence
  }
  for (const word of words) {
    if (FENCE_ONLY_LANGUAGE_ALIASES.has(word)) continue
    const language = PROGRAMMING_LANGUAGES.get(word)
    if (language) return language
  }
  return null
}

/** `{{name}}` template variables in order of first appearance; they are copied, never rewritten. */
export function detectVariables(text: string): string[] {
  return unique(text.match(/\{\{[^{}\n]{1,200}\}\}/g) ?? [])
}
