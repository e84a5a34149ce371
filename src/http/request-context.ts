// Per-request facts every layer may need: the request id, the client address, the start time.
import type { Server } from 'bun'

/** A request id that is safe to print anywhere: checked against INCOMING_ID, or a UUID */
export type RequestId = string & { readonly __brand: 'RequestId' }

export interface RequestInfo {
  id: RequestId
  startedAt: number
  server: AnyServer
  trustProxy: boolean
  /** worked out on first use: most requests never ask */
  address?: string
}

type AnyServer = Pick<Server<unknown>, 'requestIP'> | null | undefined

// Kept on the Request itself under a private symbol: cheaper than a WeakMap entry per request.
const INFO = Symbol('promptlib.request-info')
type WithInfo = Request & { [INFO]?: RequestInfo }

const INCOMING_ID = /^[A-Za-z0-9._-]{1,128}$/

export function requestIdFor(request: Request): RequestId {
  const incoming = request.headers.get('x-request-id')
  return (incoming !== null && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID()) as RequestId
}

/**
 * With TRUST_PROXY the address is the right-most entry of X-Forwarded-For: the one our own
 * proxy appended. Left-most entries are whatever the client claimed, so they are never used.
 */
export function clientAddressOf(request: Request, server: AnyServer, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')
    if (forwarded) {
      const last = forwarded.slice(forwarded.lastIndexOf(',') + 1).trim()
      if (last && last.length <= 64) return last
    }
  }
  return server?.requestIP(request)?.address ?? 'unknown'
}

/**
 * The address as the per-address limits count it: one client, however it is written. A port is
 * dropped (a proxy may append it), an IPv4 address is written plainly (also when IPv6 wraps it,
 * ::ffff:a.b.c.d), and an IPv6 address stands for its /64 network: one host holds a whole /64
 * and may use a new address of it for every request (privacy addresses), which made each a new
 * client with ten more anonymous prompt views and ten more password guesses. Anything else is kept
 * as given.
 */
export function limitAddress(raw: string): string {
  let address = raw.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address)
  if (bracketed) address = bracketed[1]!
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'))
  const ipv4 = ipv4Of(address)
  if (ipv4 !== null) return ipv4
  if (!address.includes(':')) return address
  let canonical: string
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  } catch {
    return address
  }
  const hextets = hextetsOf(canonical)
  if (hextets === null) return canonical
  // ::ffff:a.b.c.d, an IPv4 address in IPv6's clothes.
  if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff)
    return [hextets[6]! >> 8, hextets[6]! & 255, hextets[7]! >> 8, hextets[7]! & 255].join('.')
  return `${hextets
    .slice(0, 4)
    .map((h) => h.toString(16))
    .join(':')}::/64`
}

/** a.b.c.d with each part 0–255 (leading zeros read as decimal), or null. */
function ipv4Of(text: string): string | null {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null
  return parts.map(Number).join('.')
}

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it (lower case, `::` once, no dotted tail). */
function hextetsOf(canonical: string): number[] | null {
  const [head, tail] = canonical.includes('::') ? canonical.split('::') : [canonical, undefined]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const missing = 8 - left.length - right.length
  if (tail === undefined ? left.length !== 8 : missing < 1) return null
  return [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right].map((h) => Number.parseInt(h, 16))
}

export function beginRequest(request: Request, server: AnyServer, trustProxy: boolean): RequestInfo {
  const info: RequestInfo = { id: requestIdFor(request), startedAt: performance.now(), server, trustProxy }
  ;(request as WithInfo)[INFO] = info
  return info
}

/** The info recorded at the start of this request (a fallback for requests that skipped it). */
export function requestInfo(request: Request): RequestInfo {
  return (request as WithInfo)[INFO] ?? beginRequest(request, null, false)
}

/** The caller's address as per-address limits and anonymous quotas count it (limitAddress). */
export function clientAddress(request: Request): string {
  const info = requestInfo(request)
  return (info.address ??= limitAddress(clientAddressOf(request, info.server, info.trustProxy)))
}
