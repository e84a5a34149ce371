// `promptlib db copy --to postgres://…`: moves a grown SQLite install (DATA_DIR) to PostgreSQL
// with nothing lost: users and password hashes, tokens, favorites, history, usage, the catalogue.
// Refuses a target that holds data; verifies every table's row count at the end. The JWT secret
// generated into DATA_DIR goes along (into the database's settings), so issued tokens stay valid.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { JWT_SECRET_FILE, serviceUrlProblem } from '../config'
import { openStorage } from '../db'
import { CopyError, copySqliteToPostgres } from '../db/copy'
import { redactUrl } from '../db/postgres/url'
import { sharedSetting } from '../db/postgres/settings'
import { createCatalogue } from '../features/catalogue'
import { createSkills } from '../features/skills'
import { createUsage } from '../features/usage'
import { type CliContext, DatabaseUnavailableError, explainStorageError, openCommandStorage, table, UsageError } from './context'
import { DB_USAGE } from './usage'

function parseCopyArgs(args: string[]): string {
  let to: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--to') to = args[++i]
    else if (arg.startsWith('--to=')) to = arg.slice('--to='.length)
    else throw new UsageError(`unknown argument ${arg}\nusage: ${DB_USAGE}`)
  }
  if (!to) throw new UsageError(`--to needs a PostgreSQL URL\nusage: ${DB_USAGE}`)
  const problem = serviceUrlProblem(to, ['postgres:', 'postgresql:'])
  if (problem) throw new UsageError(`--to ${problem}: a PostgreSQL URL such as postgres://user:password@host:5432/promptlib\nusage: ${DB_USAGE}`)
  return to
}

export async function dbCommand(args: string[], ctx: CliContext): Promise<number> {
  const [sub, ...rest] = args
  if (sub !== 'copy') throw new UsageError(`usage: ${DB_USAGE}`)
  const to = parseCopyArgs(rest)
  if (ctx.config.databaseUrl) throw new UsageError('db copy reads the SQLite database in DATA_DIR: unset DATABASE_URL (the target is --to)')

  const { storage: source } = await openCommandStorage({ ...ctx.config, databaseUrl: null })
  if (source.engine !== 'sqlite') throw new Error('unreachable: the source is SQLite')
  const targetConfig = { ...ctx.config, databaseUrl: to }
  let target
  try {
    target = (await openStorage(targetConfig)).storage
  } catch (error) {
    await source.close()
    const explained = explainStorageError(error, targetConfig)
    throw explained ? new DatabaseUnavailableError(explained) : error
  }
  if (target.engine !== 'postgres') throw new Error('unreachable: the target is PostgreSQL')
  try {
    ctx.out(`copying ${source.file} to ${redactUrl(to)}`)
    const counts = await copySqliteToPostgres(source, target, (name, rows) => ctx.err(`  ${name}: ${rows} row(s)`))
    // The search vectors are PostgreSQL's own columns: built from the copied rows.
    const skills = createSkills(target)
    await createCatalogue({ storage: target, usage: createUsage(target), skills }).rebuildSearchIndex()
    const secretFile = join(ctx.config.dataDir, JWT_SECRET_FILE)
    if (!ctx.config.jwtSecret && existsSync(secretFile)) {
      await sharedSetting(target, 'jwt_secret', () => readFileSync(secretFile, 'utf8').trim())
    }
    for (const line of table(
      counts.map((c) => ({ table: c.table, rows: String(c.target) })),
      ['table', 'rows'],
    ))
      ctx.out(line)
    ctx.out(`copied ${counts.reduce((n, c) => n + c.target, 0)} rows in ${counts.length} tables; every count matches`)
    return 0
  } catch (error) {
    if (error instanceof CopyError) {
      ctx.err(`promptlib: ${error.message}`)
      return 1
    }
    throw error
  } finally {
    await source.close()
    await target.close()
  }
}
