// The oauth port: identities, i.e. which account a provider's user signs in to.
import type { Tx } from '../../db/storage'

export interface IdentityKey {
  provider: string
  issuer: string
  subject: string
}

export interface IdentityRecord extends IdentityKey {
  userId: string
  email: string | null
  createdAt: Date
  lastSignInAt: Date
}

export interface OAuthStore {
  find(key: IdentityKey, tx?: Tx): Promise<IdentityRecord | null>
  /** false when the identity exists already (a concurrent sign-in linked it first). */
  insert(identity: IdentityRecord, tx?: Tx): Promise<boolean>
  /** Records a sign-in: the time and the e-mail the provider reported this time. */
  touch(key: IdentityKey, email: string | null, now: Date, tx?: Tx): Promise<void>
}
