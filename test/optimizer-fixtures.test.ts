// Every mode of the built-in optimizer against real-world prompts (test/fixtures/optimizer-prompts.ts):
// the rewrite keeps the user's words, {{variables}}, labels and output form, adds no second role,
// contradicts nothing, leaves nothing for the user to fill in, and is the same on every run.
import { describe, expect, test } from 'bun:test'
import { optimizePrompt } from '../src/features/optimizer/engines/builtin'
import { MODE_IDS, type OptimizationMode } from '../src/features/optimizer/modes'
import { PROMPT_FIXTURES } from './fixtures/optimizer-prompts'

const TARGETS = ['claude-sonnet-4-5', 'gpt-4o', 'gemini-2.5-pro', 'llama-3.1-70b', undefined]

/** Each mode once; model-specific once per model family. */
const RUNS: { mode: OptimizationMode; target?: string }[] = MODE_IDS.flatMap((mode): { mode: OptimizationMode; target?: string }[] =>
  mode === 'model-specific' ? TARGETS.map((target) => ({ mode, target })) : [{ mode }],
)

/**
 * The user's content that every rewrite must carry verbatim: code fences whole, and the prose
 * sentence by sentence. Headings ("## Role", "Task:", "<role>") are layout, which a rewrite may change.
 */
function userPieces(prompt: string): string[] {
  const fences = prompt.match(/```[\s\S]*?```/g) ?? []
  const prose = fences.reduce((rest, fence) => rest.replace(fence, '\n'), prompt)
  const sentences = prose
    .split('\n')
    .map((line) =>
      line
        .replace(/^#{1,6}\s+.*$/, '')
        .replace(/<\/?[A-Za-z][\w-]*>/g, ' ')
        .replace(/^(?:Role|Goal|Data|Output|Task|Rules|Context|Format|Audience):\s*/, ''),
    )
    .flatMap((line) => line.trim().split(/(?<=[.!?])\s+|(?<=[。！？])/))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '')
  return [...fences, ...sentences]
}

/** What the rewrite added: the output without the user's own sentences and lines. */
function addedText(prompt: string, output: string): string {
  const pieces = [...new Set([...userPieces(prompt), ...prompt.split('\n').map((line) => line.trim()), prompt.trim()])]
    .filter((piece) => piece.length > 0)
    .sort((a, b) => b.length - a.length)
  let rest = output
  for (const piece of pieces) rest = rest.split(piece).join('\n')
  return rest
}

const PLACEHOLDERS: readonly RegExp[] = [/\[[^\]\n]{2,}\]/, /<your[\s_-]/i, /\bTODO\b/, /\bTBD\b/, /\blorem\b/i, /\bXXX\b/, /\binsert (?:your|the) /i]
const ROLE_SENTENCE = /\b(?:you are|you're|act as|your role is)\b/i

test('the fixture set has at least 40 prompts of every kind the brief names', () => {
  expect(PROMPT_FIXTURES.length).toBeGreaterThanOrEqual(40)
  const all = PROMPT_FIXTURES.map((fixture) => fixture.prompt).join('\n')
  for (const variable of ['{{product:our analytics platform}}', '{{tone:friendly|formal}}', '{{level:beginner|intermediate|expert}}']) {
    expect(all).toContain(variable)
  }
  expect(PROMPT_FIXTURES.some((fixture) => fixture.prompt.length > 15_000)).toBe(true)
  expect(PROMPT_FIXTURES.some((fixture) => fixture.prompt.length < 12)).toBe(true)
  expect(PROMPT_FIXTURES.filter((fixture) => fixture.language).length).toBeGreaterThanOrEqual(4)
  expect(PROMPT_FIXTURES.filter((fixture) => fixture.labels).length).toBeGreaterThanOrEqual(8)
  expect(PROMPT_FIXTURES.filter((fixture) => fixture.role).length).toBeGreaterThanOrEqual(4)
})

for (const fixture of PROMPT_FIXTURES) {
  describe(fixture.name, () => {
    for (const { mode, target } of RUNS) {
      test(`${mode}${target === undefined ? '' : ` (${target})`}`, () => {
        const output = optimizePrompt({ prompt: fixture.prompt, mode, targetModel: target })
        expect(optimizePrompt({ prompt: fixture.prompt, mode, targetModel: target })).toBe(output)

        // Faithful: every sentence and code block of the prompt, every {{variable}} verbatim.
        for (const piece of userPieces(fixture.prompt)) expect(output).toContain(piece)
        for (const variable of fixture.prompt.match(/\{\{[^{}]+\}\}/g) ?? []) expect(output).toContain(variable)

        const added = addedText(fixture.prompt, output)
        // Nothing left to fill in, and no invented {{variables}}.
        for (const pattern of PLACEHOLDERS) expect(added).not.toMatch(pattern)
        expect(added).not.toMatch(/\{\{/)
        // The labels the prompt names are the ones the rewrite uses.
        for (const label of fixture.labels ?? []) expect(added).toContain(label)
        // The output form the prompt asks for is restated as it was written.
        for (const phrase of fixture.format ?? []) expect(added).toContain(phrase)
        // A prompt that gives the model a role gets no second one.
        if (fixture.role) expect(added).not.toMatch(ROLE_SENTENCE)
        for (const pattern of fixture.forbid ?? []) expect(added).not.toMatch(pattern)
        if (fixture.language) expect(added).toContain(`Answer in ${fixture.language}.`)
      })
    }
  })
}

test("the README's before/after examples are the engine's real output", async () => {
  const readme = await Bun.file(new URL('../README.md', import.meta.url)).text()
  const section = readme.slice(readme.indexOf('#### The built-in engine'), readme.indexOf('Decisions where the contract is silent'))
  const examples = [...section.matchAll(/`([a-z-]+)`, [^\n]*:\n\n```\n([\s\S]*?)\n```\n\n```\n([\s\S]*?)\n```/g)]
  expect(examples).toHaveLength(3)
  for (const [, mode, before, after] of examples) {
    expect(optimizePrompt({ prompt: before!, mode: mode as OptimizationMode })).toBe(after!)
  }
})
