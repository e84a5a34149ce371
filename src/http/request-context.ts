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

export function beginRequest(request: Request, server: AnyServer, trustProxy: boolean): RequestInfo {
  const info: RequestInfo = { id: requestIdFor(request), startedAt: performance.now(), server, trustProxy }
  ;(request as WithInfo)[INFO] = info
  return info
}

/** The info recorded at the start of this request (a fallback for requests that skipped it). */
export function requestInfo(request: Request): RequestInfo {
  return (request as WithInfo)[INFO] ?? beginRequest(request, null, false)
}

/** The caller's address, for per-address limits and anonymous quotas. */
export function clientAddress(request: Request): string {
  const info = requestInfo(request)
  return (info.address ??= clientAddressOf(request, info.server, info.trustProxy))
}
