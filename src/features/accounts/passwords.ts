// Password policy (contract section 3) and hashing. 8–128 characters, no composition rules,
// not only blanks, not the e-mail, not on the shipped list of common passwords.
import commonPasswordsText from './common-passwords.txt' with { type: 'text' }
import { ProblemError } from '../../http/problem'

export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 128

/** A UTF-16 surrogate without its other half (a JSON escape such as "\ud800"): no character at all. */
const LONE_SURROGATE = /\p{Cs}/u

let commonPasswords: Set<string> | undefined
function isCommon(password: string): boolean {
  commonPasswords ??= new Set(commonPasswordsText.split('\n').filter((line) => line && !line.startsWith('#')))
  return commonPasswords.has(password.toLowerCase())
}

/**
 * Passwords are compared in one Unicode form, NFC (as RFC 8265's OpaqueString profile does): "é"
 * may arrive as one code point or as "e" plus a combining accent depending on the system and
 * keyboard it was typed on, and both are the same password to the person typing it.
 */
export const normalisePassword = (password: string): string => password.normalize('NFC')

/** Returns why the password is refused, or null when it is acceptable. */
export function passwordProblem(typed: string, email: string): string | null {
  const password = normalisePassword(typed)
  const length = [...password].length
  if (length < PASSWORD_MIN) return `The password must be at least ${PASSWORD_MIN} characters long.`
  if (length > PASSWORD_MAX) return `The password must be at most ${PASSWORD_MAX} characters long.`
  // UTF-8 cannot carry half a surrogate pair: hashed, it would become U+FFFD, and the password
  // would also be every other one that differs from it only there.
  if (LONE_SURROGATE.test(password)) return 'The password holds an invalid character (half of a UTF-16 surrogate pair).'
  // Spaces count like any character, but a password of nothing else is a few taps of one key.
  if (password.trim() === '') return 'The password must not be only spaces or other blank characters.'
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) return 'The password must not be your e-mail address.'
  if (isCommon(password)) return 'This password is on the list of the most common passwords; choose another.'
  return null
}

export function assertStrongPassword(password: string, email: string, field = '/password'): void {
  const problem = passwordProblem(password, email)
  if (problem) throw new ProblemError(422, 'weak_password', problem, { errors: [{ path: field, message: problem }] })
}

export interface HashCost {
  memoryCost?: number
  timeCost?: number
}

export class PasswordHasher {
  private dummyHash: Promise<string> | undefined

  constructor(private readonly cost: HashCost = {}) {}

  hash(password: string): Promise<string> {
    return Bun.password.hash(normalisePassword(password), { algorithm: 'argon2id', ...this.cost })
  }

  /** The password in its normal form; a hash made before passwords were normalised also matches the text as typed. */
  async verify(password: string, hash: string): Promise<boolean> {
    const normal = normalisePassword(password)
    if (await this.verifyExact(normal, hash)) return true
    return normal !== password && this.verifyExact(password, hash)
  }

  private verifyExact(password: string, hash: string): Promise<boolean> {
    return Bun.password.verify(password, hash).catch(() => false)
  }

  /**
   * For unknown e-mails: spend the same time as a real verification so a login failure
   * does not tell whether the address has an account.
   */
  async verifyAgainstDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash('promptlib dummy password for timing equality')
    await this.verify(password, await this.dummyHash)
    return false
  }
}
