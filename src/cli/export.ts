// `promptlib export [--format json|csv] [--category SLUG] [PATH|-]`: the catalogue in the import
// formats (features/catalogue/export.ts), to a file or to standard output. A file is written
// beside its target and renamed into place when complete, so a failed export never leaves half a
// file under the name asked for.
import { open, rename, rm } from 'node:fs/promises'
import { extname } from 'node:path'
import { createCatalogue, type ExportFormat, UnknownCategoryError } from '../features/catalogue'
import { createSkills } from '../features/skills'
import { createUsage } from '../features/usage'
import { isSlug } from '../lib/text'
import { type CliContext, openCommandStorage, UsageError } from './context'
import { refuseDataFile } from './data-files'
import { EXPORT_USAGE } from './usage'

function parseArgs(args: string[]): { format: ExportFormat; category?: string; path: string } {
  let format: string | undefined
  let category: string | undefined
  let path: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const value = (name: string) => {
      if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1)
      const next = args[++i]
      // A flag left without its value at the end would otherwise quietly export everything.
      if (next === undefined) throw new UsageError(`${name} needs a value\nusage: ${EXPORT_USAGE}`)
      return next
    }
    if (arg === '--format' || arg.startsWith('--format=')) format = value('--format')
    else if (arg === '--category' || arg.startsWith('--category=')) category = value('--category')
    else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}\nusage: ${EXPORT_USAGE}`)
    else if (path === undefined) path = arg
    else throw new UsageError(`one PATH only (or - for standard output)\nusage: ${EXPORT_USAGE}`)
  }
  if (format !== undefined && format !== 'json' && format !== 'csv') throw new UsageError(`--format is json or csv (got "${format ?? ''}")`)
  if (category !== undefined && !isSlug(category)) throw new UsageError('--category needs a category slug (e.g. --category writing)')
  path ??= '-'
  // Without --format, the file's extension says it; standard output gets JSON.
  const chosen: ExportFormat = (format as ExportFormat | undefined) ?? (extname(path).toLowerCase() === '.csv' ? 'csv' : 'json')
  return { format: chosen, category, path }
}

/** A writer that collects small pieces into ~1 MB writes; `stdout` waits when the pipe is full. */
async function sink(path: string): Promise<{ write: (text: string) => Promise<void>; done: () => Promise<void>; fail: () => Promise<void> }> {
  let pending: string[] = []
  let size = 0
  if (path === '-') {
    // Each piece waits until it is written: a reader that left (EPIPE) fails that write, here,
    // instead of an 'error' event after the export returned. The listener keeps that event from
    // ending the process with a stack trace; the write's own callback carries the error.
    const ignore = () => {}
    process.stdout.on('error', ignore)
    const emit = (text: string) =>
      new Promise<void>((resolve, reject) => {
        process.stdout.write(text, (error) => (error ? reject(error) : resolve()))
      })
    const flush = async () => {
      if (size === 0) return
      const text = pending.join('')
      pending = []
      size = 0
      await emit(text)
    }
    return {
      async write(text) {
        pending.push(text)
        size += text.length
        if (size >= 1 << 20) await flush()
      },
      async done() {
        try {
          await flush()
        } finally {
          process.stdout.off('error', ignore)
        }
      },
      fail: async () => {
        process.stdout.off('error', ignore)
      },
    }
  }
  const partial = `${path}.partial`
  const handle = await open(partial, 'w')
  const flush = async () => {
    if (size === 0) return
    const text = pending.join('')
    pending = []
    size = 0
    await handle.write(text)
  }
  return {
    async write(text) {
      pending.push(text)
      size += text.length
      if (size >= 1 << 20) await flush()
    },
    async done() {
      await flush()
      await handle.sync()
      await handle.close()
      await rename(partial, path)
    },
    async fail() {
      await handle.close().catch(() => {})
      await rm(partial, { force: true })
    },
  }
}

export async function exportCommand(args: string[], ctx: CliContext): Promise<number> {
  const { format, category, path } = parseArgs(args)
  if (path !== '-') refuseDataFile(path, ctx.config, 'export')
  const { storage } = await openCommandStorage(ctx.config)
  const catalogue = createCatalogue({ storage, usage: createUsage(storage), skills: createSkills(storage) })
  const started = performance.now()
  let output: Awaited<ReturnType<typeof sink>> | undefined
  try {
    output = await sink(path)
    const counts = await catalogue.exportCatalogue({ format, category }, output.write)
    await output.done()
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    const what =
      format === 'csv'
        ? `${counts.prompts.toLocaleString('en-US')} prompts`
        : `${counts.categories} categories, ${counts.prompts.toLocaleString('en-US')} prompts, ${counts.skills.toLocaleString('en-US')} skills`
    // On standard output the export is the output: the summary goes to standard error.
    ;(path === '-' ? ctx.err : ctx.out)(`exported ${what} to ${path === '-' ? 'standard output' : path} (${format}, ${seconds} s)`)
    return 0
  } catch (error) {
    await output?.fail()
    // The reader of standard output left (`export - | head`): stop quietly, as a tool killed by
    // SIGPIPE does (exit 128 + 13), with no message on a terminal that asked for the first lines.
    if (path === '-' && (error as NodeJS.ErrnoException).code === 'EPIPE') return 141
    if (error instanceof UnknownCategoryError) {
      ctx.err(`promptlib: ${error.message}; nothing exported`)
      return 1
    }
    if ((error as NodeJS.ErrnoException).code && typeof (error as NodeJS.ErrnoException).path === 'string') {
      ctx.err(`promptlib: cannot write ${path}: ${(error as Error).message}`)
      return 1
    }
    throw error
  } finally {
    await storage.close()
  }
}
