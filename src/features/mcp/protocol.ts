// Everything of the endpoint that needs the MCP SDK (and zod, and yaml for SKILL.md): loaded with
// the first MCP request (index.ts), so a server no MCP client talks to does not keep ~15 MB of it.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js'
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import type { CallRegistry } from './calls'
import { jsonRpcMessages } from './messages'
import { createPrompts } from './prompts'
import { createResources } from './resources'
import { createServerFactory } from './server'
import type { McpDeps } from './index'

export function createProtocol({ catalogue, skills, favorites, optimizer, log }: McpDeps, calls: CallRegistry) {
  return {
    mcpServer: createServerFactory({
      services: { catalogue, skills, favorites, optimizer },
      prompts: createPrompts(catalogue),
      resources: createResources(skills),
      calls,
      log,
    }),
    Transport: WebStandardStreamableHTTPServerTransport,
    isJsonContentType,
    supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
    jsonRpcMessages,
  }
}

export type Protocol = ReturnType<typeof createProtocol>
