// The nine tools of contract section 12. Each calls the same service as its REST route (one
// search, one quota, one history) and answers with the REST response's shape, as
// structuredContent and as the same JSON in text. A refusal the REST route would answer with a
// 4xx is a result with isError (refusals.ts); arguments are checked with the tool's input schema
// first, and a mistake there is `validation_failed`, so the model can correct itself.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { Static, TObject, TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { type AuthUser, upgradeRequired } from '../../http/auth'
import { type FieldError, ProblemError, notFound, validationFailed } from '../../http/problem'
import { tierAtLeast } from '../../tiers'
import { type CatalogueService, fillVariables } from '../catalogue'
import type { FavoritesService } from '../favorites'
import { type OptimizerService, parseOptimizeBody } from '../optimizer'
import type { SkillsService } from '../skills'
import {
  AddFavoriteOutput,
  FavoriteInput,
  GetPromptInput,
  GetPromptOutput,
  GetSkillInput,
  GetSkillOutput,
  ListCategoriesInput,
  ListCategoriesOutput,
  ListFavoritesInput,
  ListFavoritesOutput,
  OptimizePromptInput,
  OptimizePromptOutput,
  RemoveFavoriteOutput,
  SearchPromptsInput,
  SearchPromptsOutput,
  SearchSkillsInput,
  SearchSkillsOutput,
} from './model'

export interface ToolServices {
  catalogue: Pick<CatalogueService, 'search' | 'prompt' | 'openPrompt' | 'categories'>
  skills: Pick<SkillsService, 'search' | 'get'>
  favorites: Pick<FavoritesService, 'list' | 'add' | 'remove'>
  optimizer: Pick<OptimizerService, 'start'>
}

/** One tools/call as the tool sees it. */
export interface ToolCall {
  user: AuthUser
  /** the caller's address (what the prompt meter counts for anonymous callers; here always a user) */
  address: string
  requestId: string
  /** aborted when the client cancels the call or goes away */
  signal: AbortSignal
  /** sends a progress notification, when the client asked for them (a progress token) */
  progress?: (progress: number, message: string) => Promise<void>
}

interface Tool<I extends TObject = TObject> {
  name: string
  title: string
  description: string
  input: I
  output: TSchema
  annotations: ToolAnnotations
  run(services: ToolServices, args: Static<I>, call: ToolCall): Promise<Record<string, unknown>>
}

const tool = <I extends TObject>(definition: Tool<I>) => definition as unknown as Tool

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

function requireText(value: string, path: string): string {
  if (value.trim() === '') throw validationFailed([{ path, message: 'must contain something to search for' }])
  return value
}

function requirePro(user: AuthUser): void {
  if (!tierAtLeast(user.tier, 'pro')) throw upgradeRequired('pro')
}

const TOOLS: Tool[] = [
  tool({
    name: 'search_prompts',
    title: 'Search prompts',
    description:
      'Full-text search over the prompt library (titles, descriptions, tags and content). Returns prompt summaries, best matches first, each with a highlighted snippet; open one with get_prompt.',
    input: SearchPromptsInput,
    output: SearchPromptsOutput,
    annotations: READ_ONLY,
    async run({ catalogue }, args) {
      const { items, total } = await catalogue.search(requireText(args.query, '/query'), {
        category: args.category,
        tag: args.tag,
        limit: args.limit ?? 20,
        offset: 0,
      })
      return { items, total }
    },
  }),
  tool({
    name: 'get_prompt',
    title: 'Get a prompt',
    description:
      'One prompt with its full content and its template variables ({{name}}, {{name:default}}, {{name:a|b}}). Pass `arguments` to fill the variables in: `text` is the prompt ready to use.',
    input: GetPromptInput,
    output: GetPromptOutput,
    annotations: READ_ONLY,
    async run({ catalogue }, args, call) {
      // The arguments are checked before the view is counted: a refused call costs nothing.
      const found = await catalogue.prompt(args.id)
      if (!found) throw notFound('There is no prompt with this id.')
      const filled = fillVariables(found.content, args.arguments ?? {})
      if (filled.problems.length > 0) throw argumentProblems(filled.problems)
      const { prompt } = await catalogue.openPrompt(found.id, { user: call.user, address: call.address })
      return { id: prompt.id, title: prompt.title, content: prompt.content, variables: prompt.variables, text: filled.text }
    },
  }),
  tool({
    name: 'list_categories',
    title: 'List categories',
    description: 'Every category of the library with its subcategories and how many prompts each holds.',
    input: ListCategoriesInput,
    output: ListCategoriesOutput,
    annotations: READ_ONLY,
    async run({ catalogue }) {
      return { items: await catalogue.categories() }
    },
  }),
  tool({
    name: 'search_skills',
    title: 'Search skills',
    description: 'Full-text search over the Agent Skills (SKILL.md instructions), best matches first (pro and lifetime tiers).',
    input: SearchSkillsInput,
    output: SearchSkillsOutput,
    annotations: READ_ONLY,
    async run({ skills }, args, call) {
      requirePro(call.user)
      const { items, total } = await skills.search(requireText(args.query, '/query'), { limit: args.limit ?? 20, offset: 0 })
      return { items, total }
    },
  }),
  tool({
    name: 'get_skill',
    title: 'Get a skill',
    description: 'One Agent Skill with its Markdown instructions (pro and lifetime tiers). The same text is the resource skill://{id}/SKILL.md.',
    input: GetSkillInput,
    output: GetSkillOutput,
    annotations: READ_ONLY,
    async run({ skills }, args, call) {
      requirePro(call.user)
      return await skills.get(args.id)
    },
  }),
  tool({
    name: 'optimize_prompt',
    title: 'Optimize a prompt',
    description:
      'Rewrites a prompt in one of five modes (enhance, structured, chain-of-thought, few-shot, model-specific). Counts against the daily optimization quota (free 3, starter 10; pro unlimited) and is saved in the optimizer history. With a progress token, the rewritten text streams as progress notifications.',
    input: OptimizePromptInput,
    output: OptimizePromptOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async run({ optimizer }, args, call) {
      const request = parseOptimizeBody(args)
      const optimization = await optimizer.start(call.user, request, { signal: call.signal, requestId: call.requestId })
      let received = 0
      let outcome: Record<string, unknown> | ProblemError | null = null
      // Read to the end whatever happens: the service records how the run ended when its events end.
      for await (const { event, data } of optimization.events) {
        if (event === 'delta') {
          received += data.text.length
          if (call.progress && !call.signal.aborted) await call.progress(received, data.text)
        } else if (event === 'done') {
          outcome = { id: data.id, optimized_prompt: data.optimized_prompt, remaining_today: data.remaining_today }
        } else if (event === 'error') {
          outcome = new ProblemError(502, data.code, data.detail)
        }
      }
      if (outcome instanceof ProblemError) throw new EngineRefusal(outcome)
      if (outcome === null) throw new ProblemError(499, 'cancelled', 'The optimization was cancelled; it is in the history as aborted.')
      return outcome
    },
  }),
  tool({
    name: 'list_favorites',
    title: 'List favorites',
    description: 'The user’s favorite prompts, newest first.',
    input: ListFavoritesInput,
    output: ListFavoritesOutput,
    annotations: READ_ONLY,
    async run({ favorites }, args, call) {
      const { items, total } = await favorites.list(call.user.id, { limit: args.limit ?? 20, offset: args.offset ?? 0 })
      return { items, total }
    },
  }),
  tool({
    name: 'add_favorite',
    title: 'Add a favorite',
    description: 'Marks a prompt as one of the user’s favorites (adding one that already is changes nothing).',
    input: FavoriteInput,
    output: AddFavoriteOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run({ favorites }, args, call) {
      return (await favorites.add(call.user.id, args.prompt_id)).favorite
    },
  }),
  tool({
    name: 'remove_favorite',
    title: 'Remove a favorite',
    description: 'Removes a prompt from the user’s favorites.',
    input: FavoriteInput,
    output: RemoveFavoriteOutput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run({ favorites }, args, call) {
      await favorites.remove(call.user.id, args.prompt_id)
      return { removed: true }
    },
  }),
]

/**
 * The engine failed (upstream_error, upstream_timeout…): reported to the client as a tool error
 * with the stream's own code, like the REST stream's `error` event. Not a failure of ours to log:
 * the optimizer logged it.
 */
export class EngineRefusal extends Error {
  constructor(readonly problem: ProblemError) {
    super(problem.detail)
  }
}

export function argumentProblems(problems: { name: string; message: string }[]): ProblemError {
  const errors: FieldError[] = problems.map((p) => ({ path: `/arguments/${p.name}`, message: p.message }))
  return validationFailed(errors, 'The arguments do not fit the prompt’s variables.')
}

/**
 * JSON Schema as sent: TypeBox's own markers are symbols, which JSON drops; Elysia's `nullable`
 * (an OpenAPI 3.0 word beside the anyOf with null that says the same) is no JSON Schema, and
 * validators such as the SDK client's Ajv refuse it.
 */
const jsonSchema = (schema: TSchema) =>
  JSON.parse(JSON.stringify(schema, (key, value) => (key === 'nullable' && typeof value === 'boolean' ? undefined : value))) as {
    type: 'object'
    [key: string]: unknown
  }

/** tools/list, built once: the same for every caller. */
export const TOOL_LIST = TOOLS.map((t) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: jsonSchema(t.input),
  outputSchema: jsonSchema(t.output),
  annotations: { title: t.title, ...t.annotations },
}))

const checks = new Map(TOOLS.map((t) => [t.name, { tool: t, check: TypeCompiler.Compile(t.input) }]))

/** The tool of this name, or undefined. */
export function findTool(name: string) {
  const found = checks.get(name)
  if (!found) return undefined
  return {
    /** the arguments as the tool takes them, or 422 validation_failed naming each mistake */
    parse(args: Record<string, unknown>): Record<string, unknown> {
      if (found.check.Check(args)) return args
      const errors: FieldError[] = []
      for (const error of found.check.Errors(args)) {
        if (errors.length === 20) break
        if (!errors.some((e) => e.path === (error.path || '/'))) errors.push({ path: error.path || '/', message: error.message })
      }
      throw validationFailed(errors, `The arguments of ${name} are not valid.`)
    },
    run: (services: ToolServices, args: Record<string, unknown>, call: ToolCall) => found.tool.run(services, args as never, call),
  }
}
