import { describe, expect, test } from 'bun:test'
import { createBuiltinEngine, estimateTokens, optimizePrompt } from '../src/features/optimizer/engines/builtin'
import { EngineError, type EngineRun, type OptimizeRequest } from '../src/features/optimizer/engines/types'
import { isOptimizationMode, MODE_IDS, OPTIMIZATION_MODES, type OptimizationMode } from '../src/features/optimizer/modes'

// ---------------------------------------------------------------------------------------------
// Fixtures

const SHORT = 'write a blog post about rust for beginners, at most 800 words'

const BRIEF = [
  'You are a senior Go developer at {{company}}.',
  'Our billing service charges customers twice when the payment provider times out. It runs on Kubernetes.',
  'Review the retry code below and propose a fix for my team. Explain the root cause first.',
  '```go\nfunc charge(ctx context.Context, amount int) error {\n\n\tfor i := 0; i < 3; i++ {\n\t\tif err := provider.Charge(ctx, amount); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn errRetry\n}\n```',
  'Rules:\n- Never change the public API\n- Keep the fix under 40 lines\n- Use {{go_version}} features only',
].join('\n\n')

const SPECIAL = 'Rewrite <div class="a">Tom & Jerry</div> as JSX; keep {braces}, {{name}} and `a < b && c > d` intact.'

const EMOJI_CJK = '請幫我寫一封給客戶的電子郵件，說明產品延遲發貨。🚀🎉 感謝！👍🏽 👨‍👩‍👧'

const PROMPTS: Record<string, string> = {
  short: SHORT,
  brief: BRIEF,
  special: SPECIAL,
  emojiCjk: EMOJI_CJK,
  oneChar: 'a',
  question: 'What is the capital of France?',
  template: 'Summarize this for {{audience}}:\n\n{{article}}',
}

/** A realistic 20,000-character brief: background paragraphs with a task and rules. */
function longPrompt(length = 20_000): string {
  const paragraph =
    'Our platform serves 40 merchants and processes card payments for {{company}}. The checkout must stay under 200 ms and we never store card numbers. '
  let text = 'Write a migration plan for moving our billing service from Python to Go for my team.\n\n'
  for (let i = 0; text.length < length; i++) text += paragraph + (i % 3 === 2 ? '\n\n' : '')
  return text.slice(0, length)
}

// ---------------------------------------------------------------------------------------------
// Helpers

const optimize = (prompt: string, mode: OptimizationMode, targetModel?: string) => optimizePrompt({ prompt, mode, targetModel })

/** The user's content split into pieces that every output must contain verbatim: code fences whole, prose by sentence. */
function userPieces(prompt: string): string[] {
  const fences = prompt.match(/```[\s\S]*?```/g) ?? []
  const prose = fences.reduce((rest, fence) => rest.replace(fence, '\n'), prompt)
  const sentences = prose
    .split('\n')
    .flatMap((line) => line.trim().split(/(?<=[.!?])\s+|(?<=[。！？])/))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '')
  return [...fences, ...sentences]
}

function expectAllContentPreserved(prompt: string, output: string) {
  for (const piece of userPieces(prompt)) expect(output).toContain(piece)
  for (const variable of prompt.match(/\{\{[^{}]+\}\}/g) ?? []) expect(output).toContain(variable)
}

/** Text between a heading and the next heading of the same level (or the end). */
function section(output: string, heading: string): string {
  const start = output.indexOf(`${heading}\n`)
  if (start === -1) throw new Error(`missing section ${heading}`)
  const level = heading.split(' ')[0] ?? '##'
  const bodyStart = start + heading.length + 1
  const next = output.indexOf(`\n${level} `, bodyStart)
  return output.slice(bodyStart, next === -1 ? undefined : next)
}

function between(output: string, open: string, close: string): string {
  const start = output.indexOf(open)
  const end = output.indexOf(close, start)
  if (start === -1 || end === -1) throw new Error(`missing ${open}…${close}`)
  return output.slice(start + open.length, end)
}

async function collect(run: EngineRun): Promise<string[]> {
  const chunks: string[] = []
  for await (const chunk of run.deltas) chunks.push(chunk)
  return chunks
}

const neverAborted = () => new AbortController().signal
const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff

// ---------------------------------------------------------------------------------------------

describe('modes', () => {
  test('lists the five modes with their exact labels and a description', () => {
    expect(OPTIMIZATION_MODES.map((mode) => [mode.id, mode.label])).toEqual([
      ['enhance', 'Enhance & Clarify'],
      ['structured', 'Structured Format'],
      ['chain-of-thought', 'Chain of Thought'],
      ['few-shot', 'Few-Shot Examples'],
      ['model-specific', 'Model-Specific'],
    ])
    for (const mode of OPTIMIZATION_MODES) expect(mode.description.length).toBeGreaterThan(40)
    expect(MODE_IDS).toEqual(['enhance', 'structured', 'chain-of-thought', 'few-shot', 'model-specific'])
  })

  test('isOptimizationMode accepts only known ids', () => {
    for (const id of MODE_IDS) expect(isOptimizationMode(id)).toBe(true)
    for (const value of ['', 'Enhance', 'cot', 'enhance ', 'toString', '__proto__']) expect(isOptimizationMode(value)).toBe(false)
  })
})

describe('every mode', () => {
  for (const [name, prompt] of Object.entries(PROMPTS)) {
    for (const mode of MODE_IDS) {
      test(`${mode} keeps all user content and {{variables}}: ${name}`, () => {
        expectAllContentPreserved(prompt, optimize(prompt, mode))
        expectAllContentPreserved(prompt, optimize(prompt, mode, 'claude-sonnet-4'))
      })
    }
  }

  test('is deterministic', () => {
    for (const prompt of Object.values(PROMPTS)) {
      for (const mode of MODE_IDS) {
        expect(optimize(prompt, mode, 'gpt-4o')).toBe(optimize(prompt, mode, 'gpt-4o'))
      }
    }
  })

  test('produces a different output per mode', () => {
    for (const prompt of Object.values(PROMPTS)) {
      expect(new Set(MODE_IDS.map((mode) => optimize(prompt, mode))).size).toBe(MODE_IDS.length)
      expect(new Set(MODE_IDS.map((mode) => optimize(prompt, mode, 'llama-3.1-8b'))).size).toBe(MODE_IDS.length)
    }
  })

  test('rejects an unknown mode at runtime', () => {
    expect(() => optimizePrompt({ prompt: 'x', mode: 'bogus' } as unknown as OptimizeRequest)).toThrow(TypeError)
  })
})

describe('enhance', () => {
  test('states the task, audience, rules and expected output explicitly', () => {
    const output = optimize(SHORT, 'enhance')
    expect(output.startsWith(`Task: ${SHORT}`)).toBe(true)
    expect(output).toContain('Audience: beginners')
    expect(output).toContain('Expected output:\n- Length: at most 800 words.')
    expect(output).toMatch(/Constraints:\n- /)
  })

  test('leaves nothing to fill in: a bare request may assume, and says so', () => {
    const output = optimize('write a poem about autumn', 'enhance')
    expect(output).not.toMatch(/\[[^\]]+\]/)
    expect(output).not.toContain('Audience:')
    expect(output).toContain('state that assumption in one line')
  })

  test('keeps background apart from the task', () => {
    const output = optimize('I run a small bakery in Berlin. Write an Instagram caption for our new rye loaf.', 'enhance')
    expect(output).toContain('Task: Write an Instagram caption for our new rye loaf.')
    expect(output).toContain('Context:\nI run a small bakery in Berlin.')
  })

  test('a prompt already in sections stays as written; only what it lacks is added', () => {
    const prompt = '## Task\nSummarize the notes below in 3 bullet points.\n\n## Notes\n{{notes}}'
    const output = optimize(prompt, 'enhance')
    expect(output.startsWith(prompt)).toBe(true)
    expect(output).toContain('## Expected output\n- Format: 3 bullet points.')
  })
})

describe('structured', () => {
  const HEADINGS = ['## Role', '## Context', '## Task', '## Constraints', '## Output format']

  test('has Role and Task, and the other sections in order when there is something to put in them', () => {
    for (const prompt of Object.values(PROMPTS)) {
      const output = optimize(prompt, 'structured')
      expect(output).toContain('## Role\n')
      expect(output).toContain('## Task\n')
      const positions = HEADINGS.map((heading) => output.indexOf(`${heading}\n`)).filter((position) => position >= 0)
      expect([...positions].sort((a, b) => a - b)).toEqual(positions)
    }
    expect(optimize('write a poem about autumn', 'structured')).not.toContain('## Context')
  })

  test('infers a role from the task and its field', () => {
    const role = (prompt: string) => section(optimize(prompt, 'structured'), '## Role')
    expect(role('Write a TypeScript function that debounces another function')).toContain('senior software engineer')
    expect(role('Write a slogan and tagline for our coffee brand launch campaign')).toContain('copywriter')
    expect(role('Find trends in this sales dataset and chart the monthly metrics')).toContain('data analyst')
    expect(role('Tell me something interesting')).toContain('expert assistant')
    expect(role(SHORT)).toContain('technical writer')
    expect(role('Summarize the attached board minutes')).toContain('summaries')
    expect(role('Classify each ticket as bug or feature')).toContain('labels every item')
    // The deliverable outweighs a passing keyword.
    expect(role('Write a cover letter for a senior data analyst role')).toContain('skilled writer')
    expect(role('write a poem about autumn')).toContain('creative writer')
  })

  test('asks for error handling only when the answer is a program', () => {
    const constraints = (prompt: string) => optimize(prompt, 'structured')
    expect(constraints('Write a function that reverses a linked list')).toContain('Handle errors and edge cases explicitly.')
    expect(constraints('Create a SQL query for the top 5 customers')).not.toContain('Handle errors')
    expect(constraints('Compare React and Vue for a small team')).not.toContain('Handle errors')
    for (const prompt of ['Write a function that reverses a linked list', 'Create a SQL query for the top 5 customers']) {
      expect(optimize(prompt, 'structured')).not.toContain('Language/stack')
    }
  })

  test("keeps the user's own persona as the role", () => {
    const output = optimize(BRIEF, 'structured')
    expect(section(output, '## Role').trim()).toBe('You are a senior Go developer at {{company}}.')
    expect(output.match(/You are/g)).toHaveLength(1)
  })

  test('sorts a brief into context, task and constraints', () => {
    const output = optimize(BRIEF, 'structured')
    expect(section(output, '## Context')).toContain('Our billing service charges customers twice')
    expect(section(output, '## Context')).toContain('```go')
    expect(section(output, '## Task')).toContain('Review the retry code below and propose a fix for my team.')
    expect(section(output, '## Constraints')).toContain('Rules:\n- Never change the public API')
    expect(section(output, '## Output format')).toContain('Findings ordered by severity')
  })

  test('keeps a pasted document whole and finds the task at its end', () => {
    const document = 'The checkout must stay under 200 ms. We never store card numbers. Refunds take 5 days. Support is 24/7.'
    const prompt = `${document}\n\n${document.replaceAll('5 days', '3 days')}\n\nSummarize the above in 5 bullet points for our CFO.`
    const output = optimize(prompt, 'structured')
    expect(section(output, '## Context')).toContain(document)
    expect(section(output, '## Task').trim()).toBe('Summarize the above in 5 bullet points for our CFO.')
    expect(section(output, '## Constraints')).not.toContain('The checkout must stay under 200 ms') // a fact, not a rule
    expect(section(output, '## Output format')).toContain('Format: 5 bullet points.')
    expect(section(output, '## Context')).toContain('- Audience: our CFO')
  })

  test('restates rules found inside the task', () => {
    const output = optimize("Explain recursion to a junior developer and don't use jargon.", 'structured')
    expect(section(output, '## Constraints')).toContain("- don't use jargon.")
  })

  test('a prompt with its own sections keeps them and gets no second role', () => {
    const prompt = '## Role\nYou are a tax advisor.\n\n## Task\nExplain VAT for {{country}}.\n\n## Output format\nOne short paragraph.'
    const output = optimize(prompt, 'structured')
    expect(output.startsWith(prompt)).toBe(true)
    expect(output.match(/## Role/g)).toHaveLength(1)
    expect(output.match(/## Output format/g)).toHaveLength(1)
    expect(output.match(/You are/g)).toHaveLength(1)
    const unroled = optimize('## Task\nExplain VAT for {{country}}.\n\n## Output format\nOne short paragraph.', 'structured')
    expect(unroled.startsWith('## Role\nYou are ')).toBe(true)
  })
})

describe('detection', () => {
  const enhanced = (prompt: string) => optimize(prompt, 'enhance')
  const audienceOf = (prompt: string) => /\nAudience: (.*)/.exec(enhanced(prompt))?.[1]

  test('audience, only when the prompt states one', () => {
    expect(audienceOf(SHORT)).toBe('beginners')
    expect(audienceOf('Write release notes for my team')).toBe('my team')
    expect(audienceOf('Explain our Q3 results to my manager')).toBe('my manager')
    expect(audienceOf('Write a guide for non-technical stakeholders')).toBe('non-technical stakeholders')
    expect(audienceOf('Explain black holes like I’m five')).toContain('five-year-old')
    expect(audienceOf('Write a function for sorting users by age')).toBeUndefined()
  })

  test('output form: only what the prompt asks for, in its words', () => {
    const formatOf = (prompt: string) => section(optimize(prompt, 'structured'), '## Output format')
    expect(formatOf('Compare Postgres and MySQL in a table')).toContain('Format: a table.')
    expect(formatOf('Return the extracted contacts as JSON')).toContain('Format: JSON.')
    expect(formatOf('Return the extracted contacts as JSON')).toContain('The JSON must be valid')
    expect(formatOf('Write a Python function that parses ISO dates')).toContain('fenced block')
    expect(formatOf('List the key risks in 4 bullet points')).toContain('Format: 4 bullet points.')
    // No form stated: none is invented (no email template, no essay outline, no placeholder).
    for (const prompt of ['Draft an email asking for a deadline extension', 'Write an essay on free will', 'do the thing']) {
      expect(optimize(prompt, 'structured')).not.toContain('## Output format')
    }
    // A format noun that is not the output: classifying emails does not produce one.
    expect(optimize('Classify customer emails as complaint, question or praise', 'structured')).not.toMatch(/subject line|sign-off/)
    expect(formatOf('Translate the values of this JSON file into German')).not.toContain('JSON')
  })

  test('labels the prompt names, verbatim', () => {
    const labelsIn = (prompt: string) => /exactly one of these labels, written exactly as shown: (.*)\./i.exec(optimize(prompt, 'structured'))?.[1]
    expect(labelsIn('classify customer emails as complaint, question or praise')).toBe('complaint, question, praise')
    expect(labelsIn('Classify each review as positive or negative and explain why.')).toBe('positive, negative')
    expect(labelsIn('Assign one of: Billing, Bug, Feature request. Ticket: {{t}}')).toBe('Billing, Bug, Feature request')
    expect(labelsIn('Tag each message. Allowed labels:\n- urgent\n- later\n\n{{messages}}')).toBe('urgent, later')
    expect(labelsIn('Is this SMS spam? Answer with one word (spam/ham).')).toBe('spam, ham')
    expect(labelsIn('Text: great\nSentiment: positive\n\nText: awful\nSentiment: negative\n\nText: {{t}}\nSentiment:')).toBe('positive, negative')
    expect(labelsIn('Tag each photo with the objects you see and their colours')).toBeUndefined()
    expect(labelsIn('Summarize the report as JSON with the keys "issue" and "follow_up" (true/false).')).toBeUndefined()
  })

  test('length, tone and language', () => {
    const structured = (prompt: string) => optimize(prompt, 'structured')
    expect(structured('Summarize the report in 3 bullet points')).toContain('Format: 3 bullet points.')
    expect(structured('Write an 800-word article on sleep')).toContain('Format: 800-word article.')
    expect(structured('Write a friendly, persuasive email to customers')).toContain('Tone: friendly, persuasive.')
    expect(structured('Write an email to my landlord, not too formal')).not.toContain('Tone: formal')
    expect(structured('用简单的语言解释量子计算。')).toContain('Answer in Chinese.')
    expect(structured('Schreibe eine kurze E-Mail an mein Team: das Meeting fällt aus.')).toContain('Answer in German.')
    expect(structured('Write a haiku about rain')).not.toContain('Answer in')
  })

  test('purpose is used when stated', () => {
    expect(optimize('Write an onboarding checklist so that new hires can set up their laptop alone.', 'enhance')).toContain(
      'Purpose: so that new hires can set up their laptop alone',
    )
  })
})

describe('chain-of-thought', () => {
  test('adds the reasoning scaffold and separates reasoning from the final answer', () => {
    for (const prompt of Object.values(PROMPTS)) {
      const output = optimize(prompt, 'chain-of-thought')
      expect(output.startsWith(`## Problem\n${prompt.trim()}`)).toBe(true)
      const steps = section(output, '## How to approach it')
      const expected = [
        '1. Understand the task',
        '2. List what the request gives you',
        '3. Plan',
        '4. Work through the plan',
        '5. Verify',
        '6. Give the final answer',
      ]
      let previous = -1
      for (const step of expected) {
        expect(steps.indexOf(step)).toBeGreaterThan(previous)
        previous = steps.indexOf(step)
      }
      const format = section(output, '## Response format')
      expect(format).toContain('apart')
      expect(format).toContain('`### Reasoning`')
      expect(format).toContain('`### Final answer`')
    }
  })

  test('tunes the checks to the task, and keeps the requested form for the final answer', () => {
    expect(optimize('Fix this function that crashes on empty arrays', 'chain-of-thought')).toContain('edge cases')
    expect(optimize('Calculate the probability of two sixes in three dice rolls', 'chain-of-thought')).toContain('units')
    const labelled = optimize('Classify the review as positive or negative.\n\nReview: {{review}}', 'chain-of-thought')
    expect(labelled).toContain('weighing the input against each label in turn: positive, negative')
    expect(section(labelled, '## Response format')).toContain('Exactly one of these labels, written exactly as shown: positive, negative.')
  })

  test('a prompt that ends in a slot keeps the slot last', () => {
    const prompt = 'Text: great\nSentiment: positive\n\nText: {{t}}\nSentiment:'
    expect(optimize(prompt, 'chain-of-thought').endsWith(prompt)).toBe(true)
  })
})

describe('few-shot', () => {
  test('without examples: the model writes its own, with exactly the prompt’s labels and form', () => {
    const output = optimize('classify customer emails as complaint, question or praise', 'few-shot')
    expect(output.startsWith('## Task\nclassify customer emails as complaint, question or praise')).toBe(true)
    expect(output).toContain('write 3 short worked examples')
    expect(output).toContain('(here: customer emails)')
    expect(output).toContain('no label outside this list: complaint, question, praise.')
    expect(output).toContain('`### Examples`')
    expect(output).toContain('`### Answer`')
    expect(output).not.toMatch(/\[[^\]]+\]|\bother\b/)
    const bullets = optimize('Summarize the meeting notes in 5 bullet points.\n\n{{notes}}', 'few-shot')
    expect(bullets).toContain("Give every example's output in exactly the form the real answer must take:\n- Format: 5 bullet points.")
  })

  test('with examples of its own: they are followed, not replaced, and the slot stays last', () => {
    const prompt = 'Text: great\nSentiment: positive\n\nText: awful\nSentiment: negative\n\nText: {{t}}\nSentiment:'
    const output = optimize(prompt, 'few-shot')
    expect(output.endsWith(`## Task\n${prompt}`)).toBe(true)
    expect(output).toContain('only the labels they use (positive, negative)')
    expect(output).not.toContain('write 3 short worked examples')
  })

  test('does not repeat template input', () => {
    const output = optimize('Summarize this for {{audience}}:\n\n{{article}}', 'few-shot')
    expect(output.split('{{article}}').length - 1).toBe(1)
  })
})

describe('model-specific', () => {
  test('Claude: XML tags around context, instructions and output format', () => {
    for (const model of ['claude-sonnet-4-5', 'CLAUDE-3-OPUS', 'anthropic/claude-3.5-haiku']) {
      const output = optimize(BRIEF, 'model-specific', model)
      for (const tag of ['role', 'context', 'instructions', 'constraints', 'output_format']) {
        expect(output).toContain(`<${tag}>\n`)
        expect(output).toContain(`\n</${tag}>`)
      }
      expect(between(output, '<instructions>', '</instructions>')).toContain('Review the retry code below')
      expect(between(output, '<context>', '</context>')).toContain('```go')
      expect(output.indexOf('<context>')).toBeLessThan(output.indexOf('<instructions>'))
      expect(output).toContain('<thinking>') // a review benefits from visible reasoning
    }
  })

  test('GPT / OpenAI: a System message and a User message', () => {
    for (const model of ['gpt-4o', 'GPT-4.1-mini', 'o1', 'o3-mini', 'openai/o4-mini', 'chatgpt-4o-latest']) {
      const output = optimize(BRIEF, 'model-specific', model)
      expect(output.startsWith('System:\n')).toBe(true)
      const [system = '', user = ''] = output.split('\n\nUser:\n')
      expect(system).toContain('You are a senior Go developer')
      expect(system).toContain('# Rules')
      expect(system).toContain('# Output format')
      expect(user).toContain('Task:\nReview the retry code below')
      expect(user).toContain('Our billing service charges customers twice')
    }
  })

  test('Gemini: headings with the output format last', () => {
    const output = optimize(SHORT, 'model-specific', 'gemini-2.5-pro')
    const headings = output.match(/^# .+$/gm) ?? []
    expect(headings).toEqual(['# Context', '# Task', '# Constraints', '# Output format'])
    expect(section(output, '# Task')).toContain(SHORT)
  })

  test('Llama: the Llama 3 chat template', () => {
    for (const model of ['llama-3.1-70b-instruct', 'meta-llama/Meta-Llama-3-8B', 'meta/llama3']) {
      const output = optimize(SHORT, 'model-specific', model)
      expect(output.startsWith('<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n')).toBe(true)
      expect(output).toContain('<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n')
      expect(output.endsWith('<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n')).toBe(true)
      expect(output.split('<|eot_id|>').length - 1).toBe(2)
      expect(between(output, 'user<|end_header_id|>', '<|eot_id|>')).toContain(SHORT)
    }
  })

  test('unknown or missing target: generic prompt that says no family was detected', () => {
    for (const model of ['mistral-large-latest', 'qwen3-coder', 'yolo3', '', undefined]) {
      const output = optimize(SHORT, 'model-specific', model)
      expect(output).toContain('no specific model family was detected')
      if (model) expect(output).toContain(`"${model}"`)
      for (const marker of ['<instructions>', 'System:', '<|begin_of_text|>']) expect(output).not.toContain(marker)
      for (const label of ['ROLE', 'CONTEXT', 'TASK', 'CONSTRAINTS', 'OUTPUT FORMAT']) expect(output).toContain(`\n${label}\n`)
    }
  })

  test('each family formats differently', () => {
    const outputs = ['claude', 'gpt-4o', 'gemini', 'llama', 'other'].map((model) => optimize(SHORT, 'model-specific', model))
    expect(new Set(outputs).size).toBe(5)
  })
})

describe('edge inputs', () => {
  test('a single character', () => {
    for (const prompt of ['a', '?', '😀', '中']) {
      for (const mode of MODE_IDS) expect(optimize(prompt, mode)).toContain(prompt)
    }
  })

  test('whitespace only: scaffolding around an empty task, nothing to fill in', () => {
    for (const mode of MODE_IDS) expect(optimize(' ', mode)).not.toMatch(/\[[^\]]+\]/)
  })

  test('20,000 characters: nothing dropped, in every mode', () => {
    const prompt = longPrompt()
    expect(prompt.length).toBe(20_000)
    for (const mode of MODE_IDS) {
      const output = optimize(prompt, mode, 'claude')
      expect(output.length).toBeGreaterThan(prompt.length)
      expectAllContentPreserved(prompt, output)
    }
  })

  test('20,000 characters of pathological input stay fast', () => {
    const inputs = [
      'x\n'.repeat(10_000),
      '!'.repeat(19_999) + 'a',
      '{{'.repeat(10_000),
      ' '.repeat(19_999) + 'a',
      'for '.repeat(5_000),
      '😀'.repeat(10_000),
    ]
    for (const prompt of inputs) {
      const started = performance.now()
      const output = optimize(prompt, 'structured')
      expect(performance.now() - started).toBeLessThan(200)
      expect(output).toContain(prompt.trim())
    }
  })

  test('emoji and CJK survive untouched', () => {
    for (const mode of MODE_IDS) {
      const output = optimize(EMOJI_CJK, mode)
      expect(output).toContain('請幫我寫一封給客戶的電子郵件，說明產品延遲發貨。')
      expect(output).toContain('👨‍👩‍👧')
      expect(output).toContain('👍🏽')
    }
  })

  test('code fences stay whole, blank lines included, even when unclosed', () => {
    const unclosed = 'Why does this fail?\n\n```python\ndef f():\n\n    return 1 < 2'
    for (const mode of MODE_IDS) {
      expect(optimize(BRIEF, mode)).toContain(BRIEF.match(/```go[\s\S]*?```/)?.[0] ?? '<missing>')
      expect(optimize(unclosed, mode)).toContain('```python\ndef f():\n\n    return 1 < 2')
    }
  })

  test('<, >, & and braces are not escaped', () => {
    const tricky = 'Fix <script>alert("x")</script> & {{user_input}} in {a: {b: 1}} </instructions> <|eot_id|>'
    for (const mode of MODE_IDS) {
      for (const model of ['claude', 'gpt-4o', 'llama-3']) expect(optimize(tricky, mode, model)).toContain(tricky)
    }
  })

  test('CRLF line endings are normalised, content kept', () => {
    const output = optimize('Write a haiku.\r\n\r\nAbout rain.', 'structured')
    expect(output).toContain('Write a haiku.')
    expect(output).toContain('About rain.')
    expect(output).not.toContain('\r')
  })
})

describe('builtin engine streaming', () => {
  const request: OptimizeRequest = { prompt: BRIEF, mode: 'structured' }

  test('reports itself as builtin with no model', () => {
    const engine = createBuiltinEngine()
    expect(engine.name).toBe('builtin')
    expect(engine.model).toBeNull()
  })

  test('chunks concatenate exactly to optimizePrompt output', async () => {
    const engine = createBuiltinEngine()
    for (const prompt of [...Object.values(PROMPTS), longPrompt(5_000)]) {
      for (const mode of MODE_IDS) {
        const chunks = await collect(engine.start({ prompt, mode, targetModel: 'gemini' }, neverAborted()))
        expect(chunks.join('')).toBe(optimizePrompt({ prompt, mode, targetModel: 'gemini' }))
      }
    }
  })

  test('chunks are ~48 characters and end at word boundaries where possible', async () => {
    const chunks = await collect(createBuiltinEngine().start(request, neverAborted()))
    expect(chunks.length).toBeGreaterThan(5)
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(49)
    const atBoundary = chunks.slice(0, -1).filter((chunk) => /\s$/.test(chunk)).length
    expect(atBoundary / (chunks.length - 1)).toBeGreaterThan(0.8)
  })

  test('no chunk splits a surrogate pair, for any chunk size', async () => {
    const prompt = `${'😀🎉👍🏽'.repeat(50)}𠜎𠜱 ${'🚀'.repeat(30)}`
    for (const chunkSize of [1, 2, 3, 5, 7, 48]) {
      const chunks = await collect(createBuiltinEngine({ chunkSize }).start({ prompt, mode: 'enhance' }, neverAborted()))
      expect(chunks.join('')).toBe(optimizePrompt({ prompt, mode: 'enhance' }))
      for (const chunk of chunks) {
        expect(chunk.length).toBeGreaterThan(0)
        expect(isHigh(chunk.charCodeAt(chunk.length - 1))).toBe(false)
        expect(isLow(chunk.charCodeAt(0))).toBe(false)
      }
    }
  })

  test('odd chunk sizes fall back to something sane', async () => {
    const expected = optimizePrompt(request)
    for (const chunkSize of [0, -5, 0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const chunks = await collect(createBuiltinEngine({ chunkSize }).start(request, neverAborted()))
      expect(chunks.join('')).toBe(expected)
    }
  })

  test('an already aborted signal yields nothing and throws aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    const chunks: string[] = []
    const error = await (async () => {
      for await (const chunk of createBuiltinEngine().start(request, controller.signal).deltas) chunks.push(chunk)
    })().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(EngineError)
    expect((error as EngineError).code).toBe('aborted')
    expect((error as EngineError).textEmitted).toBe(false)
    expect(chunks).toEqual([])
  })

  test('aborting mid-stream stops promptly with EngineError aborted', async () => {
    const controller = new AbortController()
    const run = createBuiltinEngine({ chunkSize: 16 }).start({ prompt: longPrompt(), mode: 'enhance' }, controller.signal)
    const chunks: string[] = []
    const error = await (async () => {
      for await (const chunk of run.deltas) {
        chunks.push(chunk)
        if (chunks.length === 3) controller.abort()
      }
    })().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(EngineError)
    expect((error as EngineError).code).toBe('aborted')
    expect((error as EngineError).textEmitted).toBe(true)
    expect(chunks.length).toBe(3)
    expect(run.usage().output_tokens).toBe(estimateTokens(chunks.join('')))
  })

  test('yields to the event loop between chunks', async () => {
    const run = createBuiltinEngine({ chunkSize: 4 }).start({ prompt: longPrompt(2_000), mode: 'structured' }, neverAborted())
    let otherTaskRan = false
    setImmediate(() => {
      otherTaskRan = true
    })
    let chunksBeforeOtherTask = 0
    for await (const _chunk of run.deltas) {
      if (otherTaskRan) break
      chunksBeforeOtherTask++
    }
    // Hundreds of chunks remain; another macrotask got its turn after the first few.
    expect(otherTaskRan).toBe(true)
    expect(chunksBeforeOtherTask).toBeLessThan(5)
  })

  test('the first chunk of a 20,000-character prompt arrives quickly', async () => {
    const engine = createBuiltinEngine()
    const prompt = longPrompt()
    for (const mode of MODE_IDS) {
      const started = performance.now()
      const iterator = engine.start({ prompt, mode, targetModel: 'claude' }, neverAborted()).deltas[Symbol.asyncIterator]()
      const first = await iterator.next()
      expect(performance.now() - started).toBeLessThan(50)
      expect(first.done).toBe(false)
      await iterator.return?.()
    }
  })

  test('usage estimates input and output tokens after the run', async () => {
    const run = createBuiltinEngine().start(request, neverAborted())
    const output = (await collect(run)).join('')
    expect(run.usage()).toEqual({ input_tokens: estimateTokens(BRIEF), output_tokens: estimateTokens(output) })
    expect(run.usage().output_tokens).toBeGreaterThan(run.usage().input_tokens)
  })
})

describe('estimateTokens', () => {
  test('is 0 for empty text and at least 1 otherwise', () => {
    expect(estimateTokens('')).toBe(0)
    for (const text of ['a', ' ', '\n', '😀', '中']) expect(estimateTokens(text)).toBeGreaterThanOrEqual(1)
  })

  test('never decreases as text grows', () => {
    const text = `${longPrompt(3_000)} 中文テキスト 😀👍🏽 ${SPECIAL}`
    let previous = 0
    for (let end = 0; end <= text.length; end += 7) {
      const estimate = estimateTokens(text.slice(0, end))
      expect(estimate).toBeGreaterThanOrEqual(previous)
      previous = estimate
    }
  })

  test('is in the usual range for English and counts CJK and emoji per character', () => {
    const english = 'The quick brown fox jumps over the lazy dog. '.repeat(20) // 900 chars, 180 words
    expect(estimateTokens(english)).toBeGreaterThan(180)
    expect(estimateTokens(english)).toBeLessThan(300)
    expect(estimateTokens('中文字符')).toBe(4)
    expect(estimateTokens('😀')).toBe(1) // one code point, two UTF-16 units
  })
})
