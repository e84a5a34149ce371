#!/usr/bin/env bun
// Entry point of `bun run cli`, `bun run start` and the compiled binary. (No top-level await:
// the binary is compiled to bytecode, which needs a CommonJS-compatible entry.)
import { runCli } from './cli'

void runCli(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exit(code)
})
