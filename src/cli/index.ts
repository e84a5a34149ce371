// The command line (contract section 11): the same entry point behind `bun run cli` and the binary.
import { type Config, ConfigError, loadConfig } from '../config'
import { createLogger, errorReport } from '../log'
import { VERSION } from '../version'
import { type CliContext, DatabaseUnavailableError, explainStorageError, openCommandStorage, UsageError } from './context'
import { BACKUP_USAGE, DB_USAGE, EXPORT_USAGE, IMPORT_USAGE, RESTORE_USAGE } from './usage'
import { serve } from './serve'
import { USER_USAGE, userCommand } from './user'
import { ProblemError } from '../http/problem'

const HELP = `promptlib ${VERSION}: a self-hosted prompt library

usage:
  promptlib [serve]                    start the HTTP server (default)
  promptlib migrate                    apply database migrations and exit
  promptlib healthcheck                exit 0 when the server on PORT answers /api/health (for containers)
  ${IMPORT_USAGE}
  ${EXPORT_USAGE}
  ${BACKUP_USAGE}
  ${RESTORE_USAGE}
  ${DB_USAGE}
${USER_USAGE.replace(/^/gm, '  ')}
  promptlib help | --version

Configuration comes from environment variables and ./.env (see .env.example).`

type Command = (args: string[], ctx: CliContext) => Promise<number>

const COMMANDS: Record<string, Command> = {
  async serve(args, ctx) {
    if (args.length > 0) throw new UsageError('usage: promptlib serve')
    await serve(ctx.config, ctx.log)
    return -1 // keeps running
  },
  async migrate(args, ctx) {
    if (args.length > 0) throw new UsageError('usage: promptlib migrate')
    const { storage, applied } = await openCommandStorage(ctx.config)
    await storage.close()
    ctx.out(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date')
    return 0
  },
  // Loaded on use: the importers (CSV, YAML) are not needed by a running server.
  import: async (args, ctx) => (await import('./import')).importCommand(args, ctx),
  export: async (args, ctx) => (await import('./export')).exportCommand(args, ctx),
  backup: async (args, ctx) => (await import('./backup')).backupCommand(args, ctx),
  restore: async (args, ctx) => (await import('./backup')).restoreCommand(args, ctx),
  user: userCommand,
  async healthcheck(args, ctx) {
    if (args.length > 0) throw new UsageError('usage: promptlib healthcheck')
    const host = ['0.0.0.0', '::', ''].includes(ctx.config.host) ? '127.0.0.1' : ctx.config.host
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${ctx.config.port}/api/health`
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3000) })
      if (res.ok) return 0
      ctx.err(`promptlib: ${url} answered ${res.status}`)
    } catch (error) {
      ctx.err(`promptlib: ${url} did not answer (${(error as Error).message})`)
    }
    return 1
  },
  db: async (args, ctx) => (await import('./db')).dbCommand(args, ctx),
}

export async function runCli(argv: string[], io: Pick<CliContext, 'out' | 'err'> = { out: console.log, err: console.error }): Promise<number> {
  const [name = 'serve', ...args] = argv
  if (name === 'help' || name === '--help' || name === '-h') {
    io.out(HELP)
    return 0
  }
  if (name === '--version' || name === 'version') {
    io.out(VERSION)
    return 0
  }
  const command = COMMANDS[name]
  if (!command) {
    io.err(`promptlib: unknown command "${name}"\n\n${HELP}`)
    return 2
  }
  let config: Config | undefined
  try {
    config = loadConfig(process.env)
    const log = createLogger(config.logLevel)
    return await command(args, { config, log, ...io })
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`promptlib: invalid configuration: ${error.message}`)
      return 1
    }
    if (error instanceof UsageError) {
      io.err(error.message)
      return 2
    }
    if (error instanceof ProblemError) {
      io.err(`promptlib: ${error.detail}`)
      return 1
    }
    if (error instanceof DatabaseUnavailableError) {
      io.err(`promptlib: ${error.message}`)
      return 1
    }
    // A statement that met a lock (or a full disk...) after the database was opened.
    const explained = config && explainStorageError(error, config)
    if (explained) {
      io.err(`promptlib: ${explained}`)
      return 1
    }
    // The system refused something (a port in use, a permission): the operator's to fix.
    const code = (error as { code?: unknown } | null)?.code
    if (error instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
      io.err(`promptlib: ${error.message} (${code})`)
      return 1
    }
    // A defect: reported in full, but a failed query's parameters (imported rows, hashes) left out.
    io.err(`promptlib: unexpected error (a defect; please report it with what follows)\n${errorReport(error)}`)
    return 70
  }
}
