// The app's only way to the server: the public /api, as any client calls it (docs/api.md).
// Errors come back as problem documents; they are thrown as ApiError with the document inside.

export interface Problem {
  status: number
  code: string
  detail: string
  errors?: { path: string; message: string }[]
  [extra: string]: unknown
}

export class ApiError extends Error {
  constructor(
    readonly problem: Problem,
    readonly headers: Headers | null = null,
  ) {
    super(problem.detail)
  }
  get status() {
    return this.problem.status
  }
  get code() {
    return this.problem.code
  }
}

export interface CallOptions {
  method?: string
  json?: unknown
  signal?: AbortSignal
  /** the bearer token to send; the session's by default (see setTokenSource) */
  token?: string | null
}

let tokenSource: () => string | null = () => null
let onUnauthorized: (problem: Problem, token: string) => void = () => {}

/** The session tells the client which token to send, and hears when the server no longer takes one (which). */
export function connectSession(source: () => string | null, unauthorized: (problem: Problem, token: string) => void) {
  tokenSource = source
  onUnauthorized = unauthorized
}

/** The raw response of a call that succeeded (2xx); anything else is thrown as ApiError. */
export async function call(path: string, options: CallOptions = {}): Promise<Response> {
  const token = options.token === undefined ? tokenSource() : options.token
  const headers: Record<string, string> = { accept: 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  if (options.json !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  try {
    response = await fetch(`/api${path}`, {
      method: options.method ?? 'GET',
      headers,
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
      signal: options.signal,
      credentials: 'same-origin',
    })
  } catch (error) {
    if (options.signal?.aborted) throw error
    throw new ApiError({ status: 0, code: 'network_error', detail: 'The server could not be reached. Check your connection and try again.' })
  }
  if (response.ok) return response
  const problem = await readProblem(response)
  if (response.status === 401 && token) onUnauthorized(problem, token)
  throw new ApiError(problem, response.headers)
}

async function readProblem(response: Response): Promise<Problem> {
  try {
    const body = (await response.json()) as Partial<Problem>
    if (typeof body.code === 'string') return { ...body, status: response.status, code: body.code, detail: String(body.detail ?? '') }
  } catch {}
  return { status: response.status, code: 'unexpected_response', detail: `The server answered ${response.status}.` }
}

export async function getJson<T>(path: string, options: CallOptions = {}): Promise<T> {
  return (await (await call(path, options)).json()) as T
}

export async function sendJson<T>(method: string, path: string, json: unknown, options: CallOptions = {}): Promise<T> {
  const response = await call(path, { ...options, method, json })
  return (response.status === 204 ? null : await response.json()) as T
}

export const isAbort = (error: unknown) => error instanceof DOMException && error.name === 'AbortError'

/** A query string from the values that are set, in the order given. */
export function query(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined && value !== '') search.set(key, String(value))
  const text = search.toString()
  return text ? `?${text}` : ''
}

// The API's shapes the app uses (docs/api.md).

export interface Tier {
  id: 'free' | 'starter' | 'pro' | 'lifetime'
  prompts_per_day: number | null
  optimizations_per_day: number | null
  api_access: boolean
  skills_access: boolean
  max_tokens: number
}

export interface SiteConfig {
  sign_in: { providers: { id: 'provider-a' | 'provider-b'; name: string }[] }
  payments: { card: Tier['id'][]; wallet: Tier['id'][]; lifetime_price: string; currency: string }
  tiers: Tier[]
}

export interface Me {
  id: string
  email: string
  name: string
  tier: Tier['id']
  created_at: string
  providers: string[]
  limits: Omit<Tier, 'id'>
  usage: { prompts_today: number; optimizations_today: number }
}

export interface Category {
  id: string
  name: string
  description: string
  icon: string | null
  prompt_count: number
  subcategories: { id: string; name: string; prompt_count: number }[]
}

export interface PromptSummary {
  id: string
  title: string
  description: string
  category_id: string
  subcategory_id: string | null
  tags: string[]
  preview: string
  favorite_count: number
  created_at: string
  updated_at: string
  snippet?: string
}

export interface Prompt extends PromptSummary {
  content: string
  variables: { name: string; default: string | null; options: string[] | null }[]
}

export interface Page<T> {
  items: T[]
  total: number
  limit: number
  offset: number
}

export interface Skill {
  id: string
  name: string
  description: string
  category: string
  tags: string[]
  license: string | null
  compatibility: string | null
  allowed_tools: string[]
  metadata: Record<string, string> | null
  files: string[]
  updated_at: string
  snippet?: string
  instructions?: string
}

export interface Token {
  token_id: string
  name: string
  created_at: string
  expires_at: string
  last_used_at: string | null
}

export interface Mode {
  id: string
  label: string
  description: string
}

export interface HistoryEntry {
  id: string
  mode: string
  prompt: string
  optimized_prompt: string | null
  engine: string
  model: string | null
  status: 'running' | 'completed' | 'failed' | 'aborted'
  created_at: string
}

export interface Subscription {
  tier: Tier['id']
  status: string
  provider: 'card' | 'wallet' | null
  current_period_end: string | null
  cancel_at_period_end: boolean
}
