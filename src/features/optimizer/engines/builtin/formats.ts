// Output formats a prompt can ask for, with the shape a good answer in that format has.

export type FormatKind = 'prose' | 'data' | 'code' | 'list'

export interface OutputFormat {
  id: string
  /** noun phrase used in sentences: "a blog post" */
  label: string
  /** short noun without article, for "a shorter blog post" */
  noun: string
  kind: FormatKind
  /** what a well-formed answer in this format looks like */
  shape: string
}

interface FormatRule extends OutputFormat {
  triggers: readonly (readonly string[])[]
}

const t = (...phrases: string[]) => phrases.map((phrase) => phrase.split(' '))

// Ordered from specific to generic; the earliest mention in the prompt wins.
const FORMAT_RULES: readonly FormatRule[] = [
  { id: 'json', label: 'a JSON document', noun: 'JSON document', kind: 'data', triggers: t('json'),
    shape: 'Valid JSON only, with no prose and no Markdown fence around it. Schema: [specify the keys and value types].' },
  { id: 'yaml', label: 'a YAML document', noun: 'YAML document', kind: 'data', triggers: t('yaml', 'yml'),
    shape: 'Valid YAML only, with no prose around it. Keys: [specify the keys].' },
  { id: 'csv', label: 'CSV data', noun: 'CSV file', kind: 'data', triggers: t('csv'),
    shape: 'CSV only: a header row, then one record per line, quoting fields that contain commas. Columns: [specify the columns].' },
  { id: 'table', label: 'a table', noun: 'table', kind: 'data', triggers: t('table', 'tables', 'spreadsheet'),
    shape: 'A Markdown table with a header row and one row per item. Columns: [specify the columns].' },
  { id: 'email', label: 'an email', noun: 'email', kind: 'prose', triggers: t('email', 'e-mail', 'emails'),
    shape: 'An email with a subject line, a greeting, a short body with one clear ask, and a sign-off.' },
  { id: 'cover-letter', label: 'a cover letter', noun: 'cover letter', kind: 'prose', triggers: t('cover letter'),
    shape: 'A one-page cover letter: an opening that names the role, two or three paragraphs of evidence, and a closing call to action.' },
  { id: 'letter', label: 'a letter', noun: 'letter', kind: 'prose', triggers: t('letter'),
    shape: 'A letter with a greeting, a body in short paragraphs, and a closing.' },
  { id: 'blog-post', label: 'a blog post', noun: 'blog post', kind: 'prose', triggers: t('blog post', 'blog', 'article', 'newsletter'),
    shape: 'A blog post in Markdown: a title, a short hook, sections with descriptive subheadings, and a brief conclusion.' },
  { id: 'product-description', label: 'a product description', noun: 'product description', kind: 'prose',
    triggers: t('product description', 'product page', 'listing'),
    shape: 'A product description: a benefit-led headline, a short paragraph on who it is for, and the key features as bullets.' },
  { id: 'essay', label: 'an essay', noun: 'essay', kind: 'prose', triggers: t('essay'),
    shape: 'An essay: an introduction that states the thesis, body paragraphs that each develop one point, and a conclusion.' },
  { id: 'report', label: 'a report', noun: 'report', kind: 'prose', triggers: t('report'),
    shape: 'A report: an executive summary, findings with supporting evidence, and recommendations.' },
  { id: 'social', label: 'a social media post', noun: 'social media post', kind: 'prose',
    triggers: t('tweet', 'tweets', 'twitter thread', 'x thread', 'linkedin', 'instagram', 'social media', 'caption'),
    shape: 'A social media post sized for the platform: a strong first line, short paragraphs, and relevant hashtags only if asked.' },
  { id: 'slides', label: 'a slide deck', noun: 'slide deck', kind: 'list', triggers: t('slides', 'slide deck', 'presentation', 'deck'),
    shape: 'A slide deck, slide by slide: a title and 3–5 bullet points per slide, plus one line of speaker notes.' },
  { id: 'poem', label: 'a poem', noun: 'poem', kind: 'prose', triggers: t('poem', 'haiku', 'sonnet', 'limerick', 'lyrics'),
    shape: 'The poem only, laid out in lines and stanzas, with a title if it fits.' },
  { id: 'story', label: 'a story', noun: 'story', kind: 'prose', triggers: t('story', 'short story', 'fable', 'narrative'),
    shape: 'The story only: a clear beginning, middle and end, with a title.' },
  { id: 'script', label: 'a script', noun: 'script', kind: 'prose', triggers: t('screenplay', 'video script', 'podcast script'),
    shape: 'A script with speaker labels and short stage or scene directions in brackets.' },
  { id: 'code', label: 'code', noun: 'code sample', kind: 'code',
    triggers: t('code', 'function', 'script', 'snippet', 'sql query', 'regex', 'component', 'unit tests', 'cli'),
    shape: 'Code in a fenced block tagged with its language, followed by a short explanation of the key decisions and how to run or use it.' },
  { id: 'outline', label: 'an outline', noun: 'outline', kind: 'list', triggers: t('outline'),
    shape: 'A hierarchical outline: numbered main points with indented sub-points.' },
  { id: 'steps', label: 'step-by-step instructions', noun: 'set of instructions', kind: 'list',
    triggers: t('step-by-step', 'step by step', 'steps', 'tutorial', 'guide', 'how-to'),
    shape: 'Step-by-step instructions as numbered steps, one action per step, with any prerequisites listed first.' },
  { id: 'summary', label: 'a summary', noun: 'summary', kind: 'prose', triggers: t('summary', 'tl;dr', 'tldr', 'abstract'),
    shape: 'A summary that leads with the main point, followed by the key supporting details.' },
  { id: 'list', label: 'a list', noun: 'list', kind: 'list', triggers: t('list', 'bullet', 'bullets', 'bullet points', 'checklist', 'ideas'),
    shape: 'A bulleted list, one idea per item, most important first.' },
  { id: 'markdown', label: 'a Markdown document', noun: 'Markdown document', kind: 'prose', triggers: t('markdown', 'readme'),
    shape: 'A Markdown document with headings, short paragraphs and lists where they help.' },
]

// Trigger phrases indexed by first word; within a bucket, longer phrases and earlier rules win.
const TRIGGERS_BY_FIRST_WORD = new Map<string, { phrase: readonly string[]; format: OutputFormat }[]>()
for (const { triggers, ...format } of FORMAT_RULES) {
  for (const phrase of triggers) {
    const bucket = TRIGGERS_BY_FIRST_WORD.get(phrase[0] ?? '') ?? []
    bucket.push({ phrase, format })
    TRIGGERS_BY_FIRST_WORD.set(phrase[0] ?? '', bucket)
  }
}
for (const bucket of TRIGGERS_BY_FIRST_WORD.values()) bucket.sort((a, b) => b.phrase.length - a.phrase.length)

/** The format the prompt mentions first, e.g. "…a blog post with a list of tips" → blog post. */
export function detectFormat(words: readonly string[]): OutputFormat | null {
  for (let i = 0; i < words.length; i++) {
    const bucket = TRIGGERS_BY_FIRST_WORD.get(words[i] ?? '')
    const hit = bucket?.find(({ phrase }) => phrase.every((word, k) => words[i + k] === word))
    if (hit) return hit.format
  }
  return null
}
