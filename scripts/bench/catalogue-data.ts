// A seeded generator of realistic, varied catalogue data for the search benchmark. Prompts are
// written from templates over a few thousand domain words (topics, artifacts, tasks, audiences,
// qualities) and mixed with sentences from the demo catalogue's hand-written prompts, so the text
// has real English and a long-tailed vocabulary; lengths run from a paragraph to 150,000
// characters. Queries are what people type into a search box: one to four content words, the
// last one often half-typed.
import demo from '../../src/features/catalogue/demo/demo-catalogue.json'

/** mulberry32: small, fast, good enough for test data, and the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const list = (text: string) =>
  text
    .trim()
    .split(/\s*\n\s*|\s*,\s*/)
    .filter(Boolean)

const TOPICS = list(`accessibility, accounting, advertising, agriculture, analytics, architecture, astronomy, auditing, automation, aviation,
banking, biology, blockchain, branding, budgeting, chemistry, climate, cloud computing, coaching, compliance, construction, consulting,
cooking, copywriting, cryptography, cybersecurity, dentistry, product design, devops, ecommerce, economics, education, electronics, energy,
civil engineering, entrepreneurship, ethics, event planning, fashion, personal finance, fitness, forestry, fundraising, game design, gardening,
genetics, geography, geology, governance, healthcare, world history, hospitality, hiring, immigration, insurance, investing, journalism,
kubernetes, employment law, leadership, linguistics, logistics, machine learning, manufacturing, marketing, mathematics, social media,
medicine, meteorology, mining, music production, negotiation, computer networking, neuroscience, nonprofit work, nursing, nutrition,
oceanography, onboarding, parenting, payments, pharmacy, philosophy, photography, physics, podcasting, public policy, politics,
procurement, psychology, publishing, python, quality assurance, real estate, recruiting, recycling, scientific research, retail, robotics,
rust programming, sales, information security, semiconductors, shipping, sociology, software engineering, sports coaching, statistics,
storytelling, supply chain, sustainability, tax preparation, teaching, telecommunications, software testing, tourism, translation,
transportation, typescript, urban planning, veterinary care, video editing, volunteering, warehousing, wellness, academic writing,
zoology, data engineering, frontend development, backend development, mobile apps, databases, postgresql, react, graphql, docker,
terraform, observability, incident response, site reliability, data privacy, gdpr, contract law, intellectual property, customer support,
customer success, user research, ux writing, interior design, carpentry, plumbing, beekeeping, wine tasting, chess, film criticism`)

const ARTIFACTS = list(`blog post, cover letter, pull request, lesson plan, budget, product launch, incident report, sales email, research summary,
job description, migration plan, press release, study guide, meal plan, pitch deck, test plan, privacy policy, podcast episode,
interview guide, product roadmap, landing page, newsletter, case study, white paper, grant proposal, business plan, marketing plan,
content calendar, style guide, onboarding checklist, performance review, retrospective, postmortem, runbook, design document,
api specification, database schema, data pipeline, dashboard, sql query, regular expression, shell script, unit tests, code review,
commit message, release notes, changelog, user story, acceptance criteria, product requirements, feature spec, competitive analysis,
swot analysis, market research, customer survey, persona, user journey map, value proposition, elevator pitch, tagline, slogan,
product description, faq page, help center article, support macro, refund policy, terms of service, contract clause, nda,
meeting agenda, meeting minutes, project charter, status update, risk register, decision memo, board update, investor update,
quarterly report, annual report, financial model, cash flow forecast, pricing page, sales script, cold email, follow-up email,
linkedin post, tweet thread, instagram caption, youtube script, video outline, webinar plan, workshop agenda, training module,
quiz, rubric, syllabus, essay outline, literature review, abstract, research question, hypothesis, experiment design, survey questions,
data cleaning plan, chart, statistical analysis, a/b test, forecast, short story, poem, song lyrics, screenplay scene, character profile,
world building notes, recipe, workout plan, travel itinerary, packing list, wedding speech, toast, eulogy, apology letter,
thank-you note, resignation letter, recommendation letter, bug report, error message, log analysis, security audit, threat model,
architecture decision record, refactoring plan, performance profile, load test, docker compose file, kubernetes manifest, ci pipeline,
terraform module, monitoring alert, on-call handbook`)

const TASKS = list(`write, review, summarize, plan, explain, draft, analyze, design, critique, outline, translate, debug, compare, rewrite,
brainstorm, audit, teach, estimate, negotiate, prioritize, optimize, simplify, proofread, structure, validate, benchmark, refactor,
document, forecast, research, edit, polish, localize, personalize, schedule, test, troubleshoot, evaluate, interview, coach`)

const AUDIENCES = list(`beginners, executives, engineers, students, customers, investors, teachers, nurses, designers, founders, managers,
researchers, parents, lawyers, recruiters, journalists, developers, analysts, marketers, salespeople, doctors, patients, volunteers,
freelancers, small businesses, nonprofits, government agencies, hiring managers, product managers, data scientists`)

const QUALITIES = list(`concise, friendly, formal, persuasive, rigorous, empathetic, skimmable, accessible, data-driven, actionable, candid,
structured, playful, authoritative, neutral, inclusive, technical, practical, detailed, high-level, step-by-step, evidence-based,
jargon-free, confident, warm, direct, diplomatic, measurable, realistic, thorough`)

const FORMATS = list(`a numbered list, a markdown table, three short paragraphs, bullet points, a checklist, a one-page brief, json, a decision
matrix, a timeline, question and answer pairs, a slide outline, an email, a memo, a script, a template with placeholders`)

type Words = Record<'topic' | 'artifact' | 'task' | 'audience' | 'quality' | 'format', () => string>
const TEMPLATES: ((p: () => string, w: Words) => string)[] = [
  (_, w) => `Keep the ${w.artifact()} ${w.quality()} and ${w.quality()}, and write for ${w.audience()}.`,
  (_, w) => `Before you ${w.task()} anything, ask up to three questions about the ${w.artifact()} if the goal is unclear.`,
  (_, w) => `Use examples from ${w.topic()} where they help ${w.audience()} understand the point.`,
  (_, w) => `Present the result as ${w.format()}, followed by a short note on what you assumed.`,
  (_, w) => `Flag any claim about ${w.topic()} that needs a source, and never invent numbers.`,
  (_, w) => `If the ${w.artifact()} mentions ${w.topic()}, check that the terminology is correct for ${w.audience()}.`,
  (_, w) => `Compare at least two approaches to the ${w.artifact()} and explain the trade-offs in ${w.quality()} language.`,
  (_, w) => `End with a ${w.quality()} summary and the next three actions for ${w.audience()}.`,
  (_, w) => `Point out where the ${w.artifact()} could be more ${w.quality()} and suggest a rewrite.`,
  (_, w) => `Estimate how long it would take to ${w.task()} the ${w.artifact()} and list the risks.`,
  (_, w) => `Consider the constraints of ${w.topic()} and ${w.topic()} before recommending anything.`,
  (_, w) => `Score each option from 1 to 5 on clarity, cost and risk, and put the scores in ${w.format()}.`,
  (p) => p(),
  (p) => p(),
  (p) => p(),
  (p) => p(),
]

const sentences: string[] = []
for (const prompt of demo.prompts) {
  for (const line of prompt.content.split('\n')) {
    const clean = line.replace(/\{\{[^}]*\}\}/g, 'it').trim()
    if (clean.length >= 20) sentences.push(clean)
  }
}

export interface GeneratedPrompt {
  id: string
  title: string
  description: string
  category: string
  subcategory: string
  tags: string[]
  content: string
  created_at: string
}

function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16))
  hex[12] = '4'
  hex[16] = '89ab'[Math.floor(random() * 4)]!
  const h = hex.join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/** Content lengths: mostly 400–3,000 characters, a tail of long ones, a few over 100,000. */
function contentLength(random: () => number): number {
  const r = random()
  if (r < 0.0005) return 100_000 + Math.floor(random() * 50_000)
  if (r < 0.03) return 5_000 + Math.floor(random() * 15_000)
  return 400 + Math.floor(random() * 2_600)
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

export function generateCatalogue(count: number, seed = 42) {
  const prompts = [...generatePrompts(count, seed)]
  return { format: 'promptlib-catalogue', version: 1, categories: benchCategories(), prompts, skills: [] }
}

/** The demo catalogue's categories and subcategories, which the generated prompts use. */
export const benchCategories = () => demo.categories.map((c) => ({ ...c, subcategories: c.subcategories.map((s) => ({ ...s })) }))

/** The prompts of generateCatalogue one at a time (a million fit in no memory as one array). */
export function* generatePrompts(count: number, seed = 42): Generator<GeneratedPrompt> {
  const random = seededRandom(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const words: Words = {
    topic: () => pick(TOPICS),
    artifact: () => pick(ARTIFACTS),
    task: () => pick(TASKS),
    audience: () => pick(AUDIENCES),
    quality: () => pick(QUALITIES),
    format: () => pick(FORMATS),
  }
  const sentence = () => pick(sentences)
  const categories = benchCategories()
  const start = Date.UTC(2025, 0, 1)
  for (let i = 0; i < count; i++) {
    const category = pick(categories)
    const topic = words.topic()
    const audience = words.audience()
    const task = words.task()
    const artifact = words.artifact()
    const target = contentLength(random)
    const parts = [
      `You are an experienced ${topic} specialist who works with ${audience}. ${capitalise(task)} a ${words.quality()} ${artifact} about {{subject}} for {{audience:${audience}}}.`,
    ]
    let length = parts[0]!.length
    while (length < target) {
      const s = pick(TEMPLATES)(sentence, words)
      parts.push(s)
      length += s.length + 1
    }
    const title =
      random() < 0.5
        ? `${capitalise(task)} a ${artifact} for ${topic}`
        : `${capitalise(artifact)} ${pick(['for', 'with', 'about'])} ${topic} ${audience}`
    yield {
      id: uuidFrom(random),
      title,
      description: `${capitalise(task)}s a ${words.quality()} ${artifact} for ${audience} working in ${topic}.`,
      category: category.id,
      subcategory: pick(category.subcategories).id,
      tags: [...new Set([slug(topic), slug(artifact), slug(task)])],
      content: parts.join(random() < 0.5 ? '\n' : ' '),
      created_at: new Date(start + Math.floor(random() * 600 * 86_400_000)).toISOString(),
    }
  }
}

/** What people type into a search box: one to four content words, the last one often half-typed. */
export function generateQueries(count: number, seed = 7): string[] {
  const random = seededRandom(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const queries: string[] = []
  for (let i = 0; i < count; i++) {
    const r = random()
    let q: string
    if (r < 0.2) q = pick(TOPICS)
    else if (r < 0.35) q = pick(ARTIFACTS)
    else if (r < 0.55) q = `${pick(TASKS)} ${pick(ARTIFACTS)}`
    else if (r < 0.7) q = `${pick(ARTIFACTS)} ${pick(TOPICS)}`
    else if (r < 0.8) q = `${pick(TOPICS)} for ${pick(AUDIENCES)}`
    else if (r < 0.9) q = `${pick(QUALITIES)} ${pick(ARTIFACTS)} for ${pick(AUDIENCES)}`
    else q = `how to ${pick(TASKS)} a ${pick(ARTIFACTS)} about ${pick(TOPICS)}`
    // Half the time the user is still typing the last word.
    if (random() < 0.5) {
      const last = q.split(' ').pop()!
      if (last.length > 3) q = q.slice(0, q.length - Math.floor(random() * (last.length - 2)))
    }
    queries.push(q)
  }
  return queries
}
