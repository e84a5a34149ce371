#!/usr/bin/env bun
// Entry point of `bun run cli`, `bun run start` and the compiled binary.
import { runCli } from './cli'

const code = await runCli(process.argv.slice(2))
if (code >= 0) process.exit(code)
