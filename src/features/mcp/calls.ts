// The tool calls in flight on this instance, so a client's `notifications/cancelled` (which
// arrives in a POST of its own) can stop the call it names. A JSON-RPC id is unique only per
// client, so calls are keyed by the credential too: a cancellation never reaches another user's
// call. Two clients sharing one token (an editor and a CLI, say) both count their ids from 0, so a
// cancellation that matches several calls cannot tell whose it is: it stops none, rather than
// someone else's (each client's own closed HTTP request still stops its call). Process memory, deliberately: a call runs in this process, and only this process can stop
// it. Behind a load balancer a cancellation that lands on another instance finds nothing here
// (docs/mcp.md); closing the HTTP request stops a call wherever it runs.

export interface Call {
  /** aborted when the client cancels the call or its HTTP request ends early */
  signal: AbortSignal
  /** the call is over: forget it */
  close(): void
}

export function createCallRegistry() {
  const calls = new Map<string, Set<AbortController>>()
  const keyOf = (credential: string, id: string | number) => `${credential}\u0000${typeof id}\u0000${id}`

  return {
    /** Registers a call; it is also aborted when `parent` (the HTTP request) aborts. */
    open(credential: string, id: string | number, parent: AbortSignal): Call {
      const key = keyOf(credential, id)
      const controller = new AbortController()
      const onParentAbort = () => controller.abort()
      if (parent.aborted) controller.abort()
      else parent.addEventListener('abort', onParentAbort, { once: true })
      let set = calls.get(key)
      if (!set) calls.set(key, (set = new Set()))
      set.add(controller)
      return {
        signal: controller.signal,
        close() {
          parent.removeEventListener('abort', onParentAbort)
          const current = calls.get(key)
          if (current?.delete(controller) && current.size === 0) calls.delete(key)
        },
      }
    },

    /** Stops the call of `credential` with this id when it is the only one; returns how many it stopped. */
    cancel(credential: string, id: string | number): number {
      const set = calls.get(keyOf(credential, id))
      if (!set || set.size !== 1) return 0
      for (const controller of set) controller.abort()
      return 1
    },

    /** how many calls are in flight (tests) */
    get size() {
      return calls.size
    },
  }
}

export type CallRegistry = ReturnType<typeof createCallRegistry>
