// What a REST refusal (a 4xx ProblemError from a service) becomes over MCP: a tool result with
// isError, so the model reads why and can act on it (contract section 12); for prompts/get and
// resources/read, a JSON-RPC error. Anything else is a failure on our side: logged with the
// request id, and the client learns only that much.
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { isLockTimeout, isUnstorableText } from '../../db/errors'
import { databaseBusy, ProblemError, unstorableText } from '../../http/problem'
import type { Logger } from '../../log'

/** JSON-RPC error code of refusals that are neither unknown ids nor invalid params (tier, quota). */
export const REFUSED = -32003
/** MCP's code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002

export interface ToolErrorResult {
  [key: string]: unknown
  isError: true
  content: { type: 'text'; text: string }[]
}

/** `code: detail`, then the problem document itself (with `required_tier`, `resets_at`, `errors`…). */
function refusalText(problem: ProblemError): string {
  return `${problem.code}: ${problem.detail}\n${JSON.stringify(problem.body())}`
}

const internal = (requestId: string) =>
  new ProblemError(500, 'internal_error', `Something went wrong on our side; the request id ${requestId} identifies it in the logs.`)

/** A refusal stays a refusal; anything else is logged and becomes internal_error. */
export function asProblem(error: unknown, log: Logger, requestId: string, what: string): ProblemError {
  if (error instanceof ProblemError && error.status < 500) return error
  if (isLockTimeout(error)) return databaseBusy()
  if (isUnstorableText(error)) {
    log.warn(`mcp ${what}: a NUL reached PostgreSQL`, { request_id: requestId })
    return unstorableText()
  }
  log.error(`mcp ${what} failed`, { request_id: requestId, error })
  return internal(requestId)
}

export function toolError(problem: ProblemError): ToolErrorResult {
  return { isError: true, content: [{ type: 'text', text: refusalText(problem) }] }
}

/** For prompts and resources: the refusal as a JSON-RPC error whose data is the problem document. */
export function jsonRpcError(problem: ProblemError, notFoundCode: number = ErrorCode.InvalidParams): McpError {
  const code =
    problem.status === 404
      ? notFoundCode
      : problem.status === 422
        ? ErrorCode.InvalidParams
        : problem.status >= 500
          ? ErrorCode.InternalError
          : REFUSED
  return new McpError(code, `${problem.code}: ${problem.detail}`, problem.body())
}
