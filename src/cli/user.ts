// `promptlib user set-tier EMAIL TIER`, `promptlib user list`, `promptlib user tokens EMAIL`.
import { createAccounts, PasswordHasher } from '../features/accounts'
import { createTokens } from '../features/tokens'
import { createUsage } from '../features/usage'
import { JwtCodec } from '../http/jwt'
import { isTier, type Tier, TIERS } from '../tiers'
import { type CliContext, openCommandStorage, table, UsageError } from './context'

export const USER_USAGE = `promptlib user set-tier EMAIL TIER   set a user's tier (${TIERS.join(', ')})
promptlib user list                  list users
promptlib user tokens EMAIL          list a user's personal access tokens
promptlib user tokens EMAIL --revoke TOKEN_ID
                                     revoke one of them`

/** The arguments' shape is checked before the database is opened: `user --help` must not create one. */
function checkArguments(sub: string | undefined, rest: string[]): void {
  if (sub === 'set-tier') {
    if (rest.length !== 2 || !rest[0] || !rest[1]) throw new UsageError('usage: promptlib user set-tier EMAIL TIER')
    if (!isTier(rest[1])) throw new UsageError(`unknown tier "${rest[1]}"; use one of ${TIERS.join(', ')}`)
  } else if (sub === 'list') {
    if (rest.length > 0) throw new UsageError('usage: promptlib user list')
  } else if (sub === 'tokens') {
    const [email, flag, tokenId, ...extra] = rest
    if (!email || (flag !== undefined && (flag !== '--revoke' || !tokenId)) || extra.length > 0) {
      throw new UsageError('usage: promptlib user tokens EMAIL [--revoke TOKEN_ID]')
    }
  } else throw new UsageError(USER_USAGE)
}

export async function userCommand(args: string[], ctx: CliContext): Promise<number> {
  const [sub, ...rest] = args
  checkArguments(sub, rest)
  const { storage } = await openCommandStorage(ctx.config)
  // The CLI never signs tokens; the codec only satisfies the service's shape.
  const accounts = createAccounts({
    storage,
    jwt: new JwtCodec('cli-does-not-sign-tokens-'.repeat(2)),
    hasher: new PasswordHasher(),
    usage: createUsage(storage),
  })
  try {
    switch (sub) {
      case 'set-tier': {
        const [email, tier] = rest as [string, Tier]
        const user = await accounts.setTierByEmail(email, tier)
        if (!user) {
          ctx.err(`no user with e-mail ${email}`)
          return 1
        }
        ctx.out(`${user.email} is now on the ${user.tier} tier`)
        return 0
      }
      case 'list': {
        const rows = (await accounts.list()).map((u) => ({
          id: u.id,
          email: u.email,
          name: u.name,
          tier: u.tier,
          created_at: u.createdAt.toISOString(),
        }))
        for (const line of table(rows, ['id', 'email', 'name', 'tier', 'created_at'])) ctx.out(line)
        return 0
      }
      case 'tokens': {
        const [email, , tokenId] = rest as [string, string?, string?]
        const user = await accounts.findByEmail(email)
        if (!user) {
          ctx.err(`no user with e-mail ${email}`)
          return 1
        }
        const tokens = createTokens(storage, accounts)
        if (tokenId) {
          await tokens.revoke(user.id, tokenId)
          ctx.out(`revoked token ${tokenId} of ${user.email}`)
          return 0
        }
        const now = Date.now()
        const rows = (await tokens.list(user.id)).map((t) => ({
          ...t,
          last_used_at: t.last_used_at ?? '-',
          state: Date.parse(t.expires_at) <= now ? 'expired' : 'active',
        }))
        for (const line of table(rows, ['token_id', 'name', 'state', 'created_at', 'expires_at', 'last_used_at'])) ctx.out(line)
        return 0
      }
      default:
        throw new UsageError(USER_USAGE)
    }
  } finally {
    await storage.close()
  }
}
