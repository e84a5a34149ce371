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
import { createPrompts } from './prompts'
import { createResources } from './resources'
import { mcpRoutes as routes } from './routes'
import { createServerFactory } from './server'

export { createAdmission, MCP_CONCURRENCY } from './admission'
export { TOOL_LIST } from './tools'

export interface McpDeps {
  catalogue: Pick<CatalogueService, 'search' | 'prompt' | 'openPrompt' | 'categories' | 'newestPrompts'>
  skills: Pick<SkillsService, 'search' | 'get' | 'list'>
  favorites: Pick<FavoritesService, 'list' | 'add' | 'remove'>
  optimizer: Pick<OptimizerService, 'start'>
  log: Logger
}

export function createMcp({ catalogue, skills, favorites, optimizer, log }: McpDeps) {
  const calls = createCallRegistry()
  const mcpServer = createServerFactory({
    services: { catalogue, skills, favorites, optimizer },
    prompts: createPrompts(catalogue),
    resources: createResources(skills),
    calls,
    log,
  })
  return { mcpServer, calls, admission: createAdmission() }
}

export type Mcp = ReturnType<typeof createMcp>

export function mcpRoutes({ mcp, authenticate, corsOrigins }: { mcp: Mcp; authenticate: BearerAuthenticator; corsOrigins: string[] }) {
  return routes({ mcpServer: mcp.mcpServer, calls: mcp.calls, admission: mcp.admission, authenticate, corsOrigins })
}
