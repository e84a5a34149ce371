import { PhraseSet, phrasePattern } from './text'

// Word lists behind the prompt analysis. Kept as data so the heuristics stay readable
// and can be extended without touching the logic. All entries are lower case.

const words = (list: string): ReadonlySet<string> => new Set(list.trim().split(/\s+/))

/** Verbs that open an instruction ("write …", "please summarise …"). */
export const IMPERATIVE_VERBS = words(`
  act add adapt analyse analyze answer assess assign audit brainstorm build calculate categorise categorize
  check choose classify clean code compare compose compute condense configure convert correct craft
  create critique debug decide define determine deploy describe design detect develop devise document draft edit
  estimate evaluate expand explain extract fill find fix forecast format generate give help identify
  implement improve install investigate label list make map migrate name optimise optimize organise
  organize outline paraphrase parse plan polish port predict prepare produce proofread propose prove
  output pick pull rank rate read recommend refactor rephrase reply research respond restructure return review revise rewrite score select
  shorten show simplify sketch solve sort suggest summarise summarize tag teach tell test train
  transcribe transform translate troubleshoot tune update validate verify write
`)

/** Openers that make the next word the verb: "could you explain", "i need you to write". */
export const POLITE_PREFIXES = new PhraseSet([
  'i would like you to',
  "i'd like you to",
  'i want you to',
  'i need you to',
  'can you please',
  'could you please',
  'can you',
  'could you',
  'would you',
  'will you',
  'help me',
  'please',
  'kindly',
  'now',
  'then',
  'also',
  'and',
  'so',
])

/** Openers of a request that has no imperative verb: "I need a logo brief". */
export const REQUEST_OPENERS = new PhraseSet(['i need', 'i want', "i'd like", 'i would like', 'give me', "i'm looking for"])

/** Openers that assign a persona rather than a task: "You are a …", "Act as …". */
export const ROLE_OPENERS = new PhraseSet([
  'you are',
  "you're",
  'act as',
  'pretend to be',
  'pretend you',
  'imagine you',
  'i want you to act',
  'take the role',
  'your role',
])

/** Words after "for" / "to" that make the phrase an audience ("for beginners", "to my manager"). */
export const AUDIENCE_NOUNS = words(`
  adult adults audience beginner beginners board boss ceo ceos cfo cfos child children cio class client clients cmo coo
  colleague colleagues committee community coworker coworkers cto customer customers designer designers
  developer developers director directors doctor doctors educator educators employee employees engineer engineers
  everyone executive executives expert experts fan fans follower followers founder founders freshman grandma grandpa
  hr intern interns investor investors juniors kid kids layman laymen layperson learner learners
  leadership lawyer lawyers manager managers marketer marketers newbie newbies newcomer newcomers
  non-technical nontechnical novice novices nurse nurses parent parents patient patients people
  professional professionals programmer programmers public reader readers recruiter recruiters
  researcher researchers reviewer reviewers scientist scientists seniors stakeholder stakeholders staff student
  students subscriber subscribers teacher teachers team teammates teen teenagers teens toddler user users viewers vp vps
`)

/** Words that end an audience or topic phrase: "rust | for beginners", "beginners | who know python". */
export const PHRASE_STOPWORDS = words(`
  about and as at because but by explaining for from in including into like on or so than that to under
  using via which while who whose with within without
`)

export const TONE_WORDS = words(`
  academic assertive authoritative calm casual cheerful confident conversational diplomatic
  empathetic encouraging energetic enthusiastic formal friendly funny humorous informal inspiring
  lighthearted light-hearted motivational neutral objective optimistic persuasive playful polite
  professional respectful sarcastic serious supportive sympathetic upbeat warm witty
`)

export const NEGATIONS = words(`not no never avoid without don't dont isn't less too`)

/** Qualitative length words; numeric lengths ("at most 200 words") are parsed separately. */
export const LENGTH_WORDS = words(`
  brief comprehensive concise detailed exhaustive in-depth lengthy long one-page short succinct thorough
`)

/** Units that turn a number into a length or count: "3 paragraphs", "10 ideas". */
export const LENGTH_UNITS = words(`
  bullet bullets chapter chapters character characters chars example examples headline headlines idea
  ideas item items line lines minute minutes name names option options page pages paragraph paragraphs
  point points question questions reason reasons section sections sentence sentences slide slides
  slogan slogans step steps tagline taglines tip tips title titles tweet tweets variation variations
  version versions way ways word words
`)

export const LENGTH_QUALIFIERS = new PhraseSet([
  'no more than',
  'no less than',
  'fewer than',
  'less than',
  'more than',
  'at most',
  'at least',
  'up to',
  'under',
  'around',
  'about',
  'approximately',
  'roughly',
  'exactly',
  'max',
  'maximum',
  'min',
  'minimum',
  'between',
  'within',
])

export const NUMBER_WORDS = words(`
  one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty fifty hundred few
  couple single
`)

/** Phrases that mark a sentence as a rule the answer must obey. */
const CONSTRAINT_TRIGGER_PHRASES = [
  'must',
  "mustn't",
  'should',
  "shouldn't",
  "don't",
  'do not',
  'never',
  'always',
  'avoid',
  'without',
  'no more than',
  'at most',
  'at least',
  'limit',
  'ensure',
  'make sure',
  'exactly',
  'required',
  'cannot',
  "can't",
  'keep it',
  'keep them',
  'keep each',
  'keep your',
  'keep every',
  'keep all',
  'no longer than',
  'maximum',
  'minimum',
  'refrain',
  'stick to',
  'use only',
  'only use',
  'only include',
  'respond only',
  'reply only',
  'answer only',
  'output only',
  'return only',
  'no jargon',
  'no emojis',
]
export const CONSTRAINT_TRIGGERS = new PhraseSet(CONSTRAINT_TRIGGER_PHRASES)
/** The same phrases as one regex, to find a rule anywhere in a long sentence. */
export const CONSTRAINT_TRIGGER_PATTERN = phrasePattern(CONSTRAINT_TRIGGER_PHRASES)

/** Headers that introduce a block of rules. */
export const CONSTRAINT_HEADERS = words(`
  constraints requirements rules guidelines restrictions limitations notes must musts dos don'ts
`)

export const HUMAN_LANGUAGES = words(`
  arabic bengali chinese czech danish dutch english finnish french german greek hebrew hindi
  hungarian indonesian italian japanese korean malay mandarin norwegian persian polish portuguese
  romanian russian spanish swahili swedish thai turkish ukrainian urdu vietnamese
`)

/** Programming languages by the word people use and by code-fence info string. */
export const PROGRAMMING_LANGUAGES: ReadonlyMap<string, string> = new Map([
  ['typescript', 'TypeScript'],
  ['ts', 'TypeScript'],
  ['tsx', 'TypeScript'],
  ['javascript', 'JavaScript'],
  ['js', 'JavaScript'],
  ['jsx', 'JavaScript'],
  ['node.js', 'JavaScript'],
  ['nodejs', 'JavaScript'],
  ['python', 'Python'],
  ['py', 'Python'],
  ['rust', 'Rust'],
  ['rs', 'Rust'],
  ['golang', 'Go'],
  ['go', 'Go'],
  ['java', 'Java'],
  ['kotlin', 'Kotlin'],
  ['swift', 'Swift'],
  ['ruby', 'Ruby'],
  ['rb', 'Ruby'],
  ['php', 'PHP'],
  ['csharp', 'C#'],
  ['cs', 'C#'],
  ['cpp', 'C++'],
  ['sql', 'SQL'],
  ['postgres', 'SQL'],
  ['postgresql', 'SQL'],
  ['mysql', 'SQL'],
  ['sqlite', 'SQL'],
  ['bash', 'Bash'],
  ['sh', 'Bash'],
  ['shell', 'Bash'],
  ['zsh', 'Bash'],
  ['powershell', 'PowerShell'],
  ['haskell', 'Haskell'],
  ['scala', 'Scala'],
  ['elixir', 'Elixir'],
  ['dart', 'Dart'],
  ['lua', 'Lua'],
  ['html', 'HTML'],
  ['css', 'CSS'],
  ['react', 'React'],
  ['vue', 'Vue'],
  ['svelte', 'Svelte'],
])

/** Aliases too ambiguous in prose ("go for it"); only trusted as a code-fence info string. */
export const FENCE_ONLY_LANGUAGE_ALIASES = words(`go ts tsx js jsx py rs rb cs sh`)
