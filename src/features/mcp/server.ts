// One MCP server per HTTP request (stateless: any instance answers any message). It is the
// official SDK's low-level Server, which does the protocol (initialize and its version
// negotiation, ping, JSON-RPC framing); the handlers here answer tools, prompts and resources for
// the authenticated user. The low-level Server rather than McpServer: prompts and resources are
// paginated walks through the database, not a fixed list registered up front, and tool arguments
// are checked here so that a mistake is the contract's `validation_failed`.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import * as z from 'zod'
import type { AuthUser } from '../../http/auth'
import { validationFailed } from '../../http/problem'
import type { Logger } from '../../log'
import { VERSION } from '../../version'
import type { CallRegistry } from './calls'
import type { McpPrompts } from './prompts'
import { asProblem, jsonRpcError, RESOURCE_NOT_FOUND, toolError } from './refusals'
import type { McpResources } from './resources'
import { EngineRefusal, findTool, TOOL_LIST, type ToolCall, type ToolServices } from './tools'

const INSTRUCTIONS = `promptlib is a prompt library. Find prompts with search_prompts (or browse list_categories), open one with get_prompt and fill its {{variables}} with \`arguments\`; the same prompts are MCP prompts. optimize_prompt rewrites a prompt (it counts against the user's daily optimization quota). Favorites: list_favorites, add_favorite, remove_favorite. Pro and lifetime users also have Agent Skills: search_skills, get_skill, and each skill's SKILL.md as the resource skill://{id}/SKILL.md. A refusal (unknown id, tier too low, quota used up, invalid arguments) comes back as a tool error whose text starts with its code.`

/**
 * The Server validates JSON Schema only for elicitation, which this server never asks for; its
 * default (a new Ajv compiler per Server, that is per request) would cost more than the request.
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'this server does not ask clients for input' }),
}

/** The HTTP request this server answers. */
export interface Session {
  user: AuthUser
  /** who may cancel this request's calls: the user and the token used */
  credential: string
  address: string
  requestId: string
  /** aborted when the HTTP exchange ends before its answer did */
  gone: AbortSignal
}

export interface ServerDeps {
  services: ToolServices
  prompts: McpPrompts
  resources: McpResources
  calls: CallRegistry
  log: Logger
}

/**
 * What the SDK routes on: only the method, so that the params are checked by `handle` below. Built
 * once per method, not per request: a zod schema costs more to build than a request to answer.
 */
const routingSchemas = new Map<string, z.ZodObject>()
function routingSchema(method: string): z.ZodObject {
  let schema = routingSchemas.get(method)
  if (!schema) routingSchemas.set(method, (schema = z.object({ method: z.literal(method) }).loose()))
  return schema
}

/**
 * tools/list and resources/templates/list fit on one page and never hand out a cursor: any cursor
 * is invalid, and MCP says an invalid cursor is invalid params, as prompts/list and resources/list
 * answer it (the whole list again would tell the client nothing was wrong).
 */
function noCursor(cursor: string | undefined): void {
  if (cursor !== undefined) throw jsonRpcError(validationFailed([{ path: '/cursor', message: 'is not a cursor this server handed out' }]))
}

type RequestSchema = typeof CallToolRequestSchema | typeof GetPromptRequestSchema | z.ZodObject
type Extra = Parameters<Parameters<Server['setRequestHandler']>[1]>[1]

export function createServerFactory({ services, prompts, resources, calls, log }: ServerDeps) {
  return function mcpServer(session: Session): Server {
    const server = new Server(
      { name: 'promptlib', title: 'promptlib', version: VERSION },
      { capabilities: { tools: {}, prompts: {}, resources: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_ELICITATION },
    )

    /**
     * Registers `answer` for the method of `schema`. The SDK would parse the request with the
     * schema itself and turn a mismatch into an internal error (-32603); parsed here, it is
     * invalid params (-32602). A refusal becomes a JSON-RPC error naming its code; anything else
     * is logged and reported without detail.
     */
    function handle<S extends RequestSchema>(schema: S, answer: (request: z.infer<S>, extra: Extra) => unknown, notFoundCode?: number) {
      const method = (schema as z.ZodObject).shape.method.value as string
      server.setRequestHandler(
        routingSchema(method) as never,
        (async (request: unknown, extra: Extra) => {
          const parsed = (schema as z.ZodType).safeParse(request)
          if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid ${method} request: ${z.prettifyError(parsed.error)}`)
          try {
            return await answer(parsed.data as z.infer<S>, extra)
          } catch (error) {
            if (error instanceof McpError) throw error
            throw jsonRpcError(asProblem(error, log, session.requestId, method), notFoundCode)
          }
        }) as never,
      )
    }

    handle(ListToolsRequestSchema, (request) => {
      noCursor(request.params?.cursor)
      return { tools: TOOL_LIST }
    })

    handle(CallToolRequestSchema, async (request, extra) => {
      const { name } = request.params
      const tool = findTool(name)
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 100)}`)
      const call = calls.open(session.credential, extra.requestId, session.gone)
      const token = extra._meta?.progressToken
      const context: ToolCall = {
        user: session.user,
        address: session.address,
        requestId: session.requestId,
        signal: call.signal,
        progress:
          token === undefined
            ? undefined
            : (progress, message) =>
                extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } }),
      }
      try {
        const structured = await tool.run(services, tool.parse(request.params.arguments ?? {}), context)
        return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured }
      } catch (error) {
        if (error instanceof EngineRefusal) return toolError(error.problem)
        return toolError(asProblem(error, log, session.requestId, `tool ${name}`))
      } finally {
        call.close()
      }
    })

    handle(ListPromptsRequestSchema, (request) => prompts.list(request.params?.cursor))
    handle(GetPromptRequestSchema, (request) =>
      prompts.get(request.params.name, request.params.arguments ?? {}, { user: session.user, address: session.address }),
    )

    handle(ListResourcesRequestSchema, (request) => resources.list(session.user, request.params?.cursor))
    handle(ListResourceTemplatesRequestSchema, (request) => {
      noCursor(request.params?.cursor)
      return resources.templates(session.user)
    })
    handle(ReadResourceRequestSchema, (request) => resources.read(session.user, request.params.uri), RESOURCE_NOT_FOUND)

    return server
  }
}
