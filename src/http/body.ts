// Request bodies: JSON only, at most 1 MiB, strict UTF-8. One parser for the whole API, so
// every route answers a bad body the same way (contract section 2).
import { ProblemError } from './problem'

export const MAX_BODY_BYTES = 1024 * 1024

const rawBodies = new WeakMap<Request, string>()

/** The exact body text as received, for signature checks (webhooks). Never re-serialise. */
export function rawBody(request: Request): string | undefined {
  return rawBodies.get(request)
}

export const payloadTooLarge = () =>
  new ProblemError(413, 'payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`)

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

async function readLimited(request: Request): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array()
  // A declared length was checked at the edge; Bun enforces it, so read in one go.
  if (request.headers.has('content-length')) return new Uint8Array(await request.arrayBuffer())
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {})
      throw payloadTooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase()
  return mediaType === 'application/json' || (mediaType.startsWith('application/') && mediaType.endsWith('+json'))
}

/**
 * The parse hook of routes with a JSON body (jsonBody in schemas.ts): returns the parsed value, or throws a ProblemError
 * (415 wrong media type, 413 too large, 400 malformed JSON or invalid UTF-8).
 */
export async function parseJsonBody(request: Request, contentType: string): Promise<unknown> {
  // No body at all (a DELETE, a bare POST): nothing to parse; the route's schema decides.
  if (!contentType && (request.body === null || request.headers.get('content-length') === '0')) return undefined
  if (!isJsonMediaType(contentType)) {
    throw new ProblemError(415, 'unsupported_media_type', 'Send the request body as application/json.')
  }
  const bytes = await readLimited(request)
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    throw new ProblemError(400, 'malformed_json', 'The request body is not valid UTF-8.')
  }
  rawBodies.set(request, text)
  if (text.trim() === '') throw new ProblemError(400, 'malformed_json', 'The request body is empty; send a JSON object.')
  try {
    return JSON.parse(text)
  } catch {
    throw new ProblemError(400, 'malformed_json', 'The request body is not valid JSON.')
  }
}
