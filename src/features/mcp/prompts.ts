// The catalogue as MCP prompts (contract section 12): prompts/list walks every prompt, newest
// first, a page at a time; a prompt's name is its UUID, its arguments its template variables.
// prompts/get fills the variables in and answers one user message. Prompt reads count as prompt
// views exactly as GET /api/prompts/{id} does (docs/mcp.md).
import type { GetPromptResult, ListPromptsResult } from '@modelcontextprotocol/sdk/types.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import type { AuthUser } from '../../http/auth'
import { type CatalogueService, fillVariables, type Prompt } from '../catalogue'
import { argumentProblems } from './tools'
import { jsonRpcError } from './refusals'

/** Prompts per prompts/list page: a client lists a large catalogue in a few hundred calls, each a few hundred KB at most. */
export const PROMPTS_PAGE = 100

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

type Variable = Prompt['variables'][number]

function describeVariable(v: Variable): string | undefined {
  if (v.options) return `one of: ${v.options.join(', ')}`
  if (v.default !== null) return `default: ${v.default}`
  return undefined
}

function promptEntry(p: Prompt): ListPromptsResult['prompts'][number] {
  return {
    name: p.id,
    title: p.title,
    description: p.description || p.preview,
    arguments: p.variables.map((v) => ({ name: v.name, description: describeVariable(v), required: v.default === null })),
  }
}

export function createPrompts(catalogue: Pick<CatalogueService, 'newestPrompts' | 'prompt' | 'openPrompt'>) {
  return {
    async list(cursor: string | undefined): Promise<ListPromptsResult> {
      const { items, next } = await catalogue.newestPrompts(cursor, PROMPTS_PAGE)
      return next === null ? { prompts: items.map(promptEntry) } : { prompts: items.map(promptEntry), nextCursor: next }
    },

    async get(name: string, args: Record<string, string>, caller: { user: AuthUser; address: string }): Promise<GetPromptResult> {
      const found = UUID.test(name) ? await catalogue.prompt(name) : null
      if (!found) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name.slice(0, 100)} (a prompt's name is its id, a UUID).`)
      const filled = fillVariables(found.content, args)
      if (filled.problems.length > 0) throw jsonRpcError(argumentProblems(filled.problems))
      const { prompt } = await catalogue.openPrompt(found.id, caller)
      return { description: prompt.title, messages: [{ role: 'user', content: { type: 'text', text: filled.text } }] }
    },
  }
}

export type McpPrompts = ReturnType<typeof createPrompts>
