// MCP: the library for Model Context Protocol clients at POST /api/mcp (contract section 12).
// Written on the other features' services (through their index.ts), so it runs on both engines.
import type { BearerAuthenticator } from '../../http/auth'
import type { Logger } from '../../log'
import type { CatalogueService } from '../catalogue'
import type { FavoritesService } from '../favorites'
import type { OptimizerService } from '../optimizer'
import type { SkillsService } from '../skills'
import { createAdmission } from './admission'
import { createCallRegistry } from './calls'
import type { Protocol } from './protocol'
import { mcpRoutes as routes } from './routes'

export { createAdmission, MCP_CONCURRENCY } from './admission'
export { TOOL_LIST } from './tools'

export interface McpDeps {
  catalogue: Pick<CatalogueService, 'search' | 'prompt' | 'openPrompt' | 'categories' | 'newestPrompts'>
  skills: Pick<SkillsService, 'search' | 'get' | 'list'>
  favorites: Pick<FavoritesService, 'list' | 'add' | 'remove'>
  optimizer: Pick<OptimizerService, 'start'>
  log: Logger
}

export function createMcp(deps: McpDeps) {
  const calls = createCallRegistry()
  // The SDK's part loads with the first request (protocol.ts says why).
  let loading: Promise<Protocol> | null = null
  const protocol = () => (loading ??= import('./protocol').then(({ createProtocol }) => createProtocol(deps, calls)))
  return { protocol, calls, admission: createAdmission() }
}

export type Mcp = ReturnType<typeof createMcp>

export function mcpRoutes({ mcp, authenticate, corsOrigins }: { mcp: Mcp; authenticate: BearerAuthenticator; corsOrigins: string[] }) {
  return routes({ protocol: mcp.protocol, calls: mcp.calls, admission: mcp.admission, authenticate, corsOrigins })
}
