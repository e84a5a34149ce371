// `promptlib user set-tier EMAIL TIER` and `promptlib user list`.
import { createAccounts } from '../features/accounts/service'
import { PasswordHasher } from '../features/accounts/passwords'
import { JwtCodec } from '../http/jwt'
import { isTier, TIERS } from '../tiers'
import { type CliContext, openMigratedDatabase, table, UsageError } from './context'

export const USER_USAGE = `promptlib user set-tier EMAIL TIER   set a user's tier (${TIERS.join(', ')})
promptlib user list                  list users`

export async function userCommand(args: string[], ctx: CliContext): Promise<number> {
  const [sub, ...rest] = args
  const db = openMigratedDatabase(ctx.config)
  // The CLI never signs tokens; the codec only satisfies the service's shape.
  const accounts = createAccounts({ db, jwt: new JwtCodec('cli-does-not-sign-tokens-'.repeat(2)), hasher: new PasswordHasher() })
  try {
    switch (sub) {
      case 'set-tier': {
        const [email, tier] = rest
        if (!email || !tier || rest.length !== 2) throw new UsageError('usage: promptlib user set-tier EMAIL TIER')
        if (!isTier(tier)) throw new UsageError(`unknown tier "${tier}"; use one of ${TIERS.join(', ')}`)
        const user = accounts.setTier(email, tier)
        if (!user) {
          ctx.err(`no user with e-mail ${email}`)
          return 1
        }
        ctx.out(`${user.email} is now on the ${user.tier} tier`)
        return 0
      }
      case 'list': {
        if (rest.length > 0) throw new UsageError('usage: promptlib user list')
        const rows = accounts.list().map((u) => ({
          id: u.id,
          email: u.email,
          name: u.name,
          tier: u.tier,
          created_at: u.createdAt.toISOString(),
        }))
        for (const line of table(rows, ['id', 'email', 'name', 'tier', 'created_at'])) ctx.out(line)
        return 0
      }
      default:
        throw new UsageError(USER_USAGE)
    }
  } finally {
    db.$client.close()
  }
}
