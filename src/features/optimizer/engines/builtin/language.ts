// The language a prompt is written in, when it is not English, so the rewrite (whose scaffolding
// is English) can ask for the answer in the user's language. Scripts decide for non-Latin text;
// a vote of very common words decides between Latin-script languages.

const SAMPLE_CHARS = 1500

const STOPWORDS: Record<string, ReadonlySet<string>> = {
  English: new Set('the and is are a an of to in for with this that it on be you your my please what how write'.split(' ')),
  German: new Set(
    'der die das und ist nicht ein eine mit für auf mein meine bitte ich du wir zu im den dem des ob oder sind schreibe erkläre'.split(' '),
  ),
  French: new Set('le la les et est une un des pour dans ce cette avec sans du au sur pas je vous ton plus qui que mon ma'.split(' ')),
  Spanish: new Set('el la los las y es un una para en con por del al que siguiente texto mi su como más sin'.split(' ')),
  Italian: new Set('il lo gli e è un una per con che della questo questa non mi sono nel alla'.split(' ')),
  Portuguese: new Set('o os as e é um uma para com não que do da em no na meu minha você'.split(' ')),
  Dutch: new Set('de het een en is niet van voor met op dit dat ik je mijn zijn naar'.split(' ')),
}

/** The language's English name, "the language of the request" for an unnamed script, or null for English. */
export function detectLanguage(prose: string): string | null {
  const sample = prose.slice(0, SAMPLE_CHARS)
  const script = scriptLanguage(sample)
  if (script !== undefined) return script
  const words = sample.toLowerCase().match(/[\p{L}']+/gu) ?? []
  const scores = new Map<string, number>()
  for (const word of words.slice(0, 400)) {
    for (const [language, stopwords] of Object.entries(STOPWORDS)) {
      if (stopwords.has(word)) scores.set(language, (scores.get(language) ?? 0) + 1)
    }
  }
  let best = 'English'
  for (const [language, score] of scores) if (score > (scores.get(best) ?? 0)) best = language
  return best === 'English' || (scores.get(best) ?? 0) < 2 ? null : best
}

/** undefined: mostly Latin letters (decided by the word vote). */
function scriptLanguage(text: string): string | null | undefined {
  let latin = 0
  let kana = 0
  let han = 0
  let hangul = 0
  let other = 0
  const counts: Record<string, number> = {}
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 0xc0 && code < 0x250)) latin++
    else if (code >= 0x3040 && code <= 0x30ff) kana++
    else if (code >= 0x4e00 && code <= 0x9fff) han++
    else if ((code >= 0xac00 && code <= 0xd7af) || (code >= 0x1100 && code <= 0x11ff)) hangul++
    else if (code >= 0x370 && code < 0x2000) {
      other++
      const name = SCRIPT_RANGES.find(([from, to]) => code >= from && code <= to)?.[2]
      if (name) counts[name] = (counts[name] ?? 0) + 1
    }
  }
  const nonLatin = kana + han + hangul + other
  if (nonLatin <= latin) return undefined
  if (kana > 0) return 'Japanese'
  if (hangul >= han && hangul > 0) return 'Korean'
  if (han > other) return 'Chinese'
  const [name] = Object.entries(counts).sort((a, b) => b[1] - a[1])[0] ?? []
  return name ?? 'the language of the request'
}

const SCRIPT_RANGES: readonly (readonly [number, number, string | null])[] = [
  [0x370, 0x3ff, 'Greek'],
  [0x400, 0x4ff, null], // Cyrillic: Russian, Ukrainian, Bulgarian, Serbian …
  [0x590, 0x5ff, 'Hebrew'],
  [0x600, 0x6ff, 'Arabic'],
  [0x900, 0x97f, 'Hindi'],
  [0xe00, 0xe7f, 'Thai'],
]
