// How many MCP requests are answered at once; the others wait their turn, first come first served.
// Not a rate limit (every request is answered, none refused): a bound on the burst. With 200
// clients calling at once, answering all of them together held every search's rows, snippets and
// two copies of its JSON at the same moment, and the heap grew to fit: server RSS peaked at
// 220-280 MB on the 100,000-prompt benchmark (scripts/bench-mcp.ts), 32 at a time ~200-205 MB,
// 16 ~180-210 MB, 8 ~165-200 MB, at the same calls per second: the database answers one search
// at a time on SQLite, and PostgreSQL's pool has ten connections. 16, not 8: under mixed load
// (scripts/load.ts, 200 connections) an admitted call holds its turn for a whole event-loop turn
// of everyone's requests, and 8 turns made MCP calls queue (p99 167 ms, 58 ms with 16). Calls
// that wait on something else (the optimizer's engine) are not admitted here: they would hold a
// turn for seconds.

export const MCP_CONCURRENCY = 16

export interface Admission {
  /** Waits for a turn; call the function it resolves with once the answer is complete (exactly once). */
  enter(): Promise<() => void>
  /** answering and waiting now (for tests) */
  readonly running: number
  readonly waiting: number
}

export function createAdmission(limit = MCP_CONCURRENCY): Admission {
  let running = 0
  const queue: (() => void)[] = []
  function leave() {
    // The turn passes straight to the next in line, so a newcomer cannot jump the queue.
    const next = queue.shift()
    if (next) next()
    else running--
  }
  return {
    async enter() {
      if (running >= limit) await new Promise<void>((resolve) => queue.push(resolve))
      else running++
      let left = false
      return () => {
        if (left) return
        left = true
        leave()
      }
    },
    get running() {
      return running
    },
    get waiting() {
      return queue.length
    },
  }
}
