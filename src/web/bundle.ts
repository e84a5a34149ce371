// The web app's files (web/index.html, its script and stylesheet), bundled by Bun from the HTML
// import below. In the compiled binary (and any ahead-of-time `bun build`) Bun has bundled them
// already and embedded the files: the import is a manifest listing them. Run from source it is only
// the HTML file's path, and the app is bundled here, in memory, with the same settings as the
// binary's build (`--minify-syntax`, no source maps), so both serve the same kind of files.
import { basename } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { HTMLBundle } from 'bun'
import app from '../../web/index.html'

export interface WebAsset {
  /** the URL path it is served at: `/` for the page, `/chunk-….js` for the rest */
  path: string
  type: string
  etag: string
  body: Uint8Array
  /** the same bytes gzipped, when that makes them smaller */
  gzip: Uint8Array | null
}

export interface WebBundle {
  page: WebAsset
  /** the page's script and stylesheet by URL path; their names carry a content hash */
  assets: Map<string, WebAsset>
}

function asset(path: string, type: string, body: Uint8Array, etag?: string): WebAsset {
  const gzipped = gzipSync(body, { level: 9 })
  return {
    path,
    type,
    etag: `"${etag ?? Bun.hash(body).toString(36)}"`,
    body,
    gzip: gzipped.byteLength < body.byteLength ? gzipped : null,
  }
}

function assemble(files: { name: string; type: string; body: Uint8Array; etag?: string }[]): WebBundle {
  let page: WebAsset | null = null
  const assets = new Map<string, WebAsset>()
  for (const file of files) {
    if (file.type.startsWith('text/html')) page = asset('/', file.type, file.body, file.etag)
    else assets.set(`/${file.name}`, asset(`/${file.name}`, file.type, file.body, file.etag))
  }
  if (!page) throw new Error('the web app bundle has no HTML page')
  return { page, assets }
}

async function embedded(files: NonNullable<HTMLBundle['files']>): Promise<WebBundle> {
  return assemble(
    await Promise.all(
      files.map(async (file) => ({
        name: basename(file.path),
        type: file.headers['content-type'],
        etag: file.headers.etag,
        body: await Bun.file(file.path).bytes(),
      })),
    ),
  )
}

async function bundledNow(entry: string): Promise<WebBundle> {
  const result = await Bun.build({
    entrypoints: [entry],
    target: 'browser',
    minify: { syntax: true },
    jsx: { development: false },
    publicPath: '/',
    sourcemap: 'none',
  })
  if (!result.success) throw new AggregateError(result.logs, 'the web app did not bundle')
  return assemble(
    await Promise.all(result.outputs.map(async (o) => ({ name: basename(o.path), type: o.type, body: new Uint8Array(await o.arrayBuffer()) }))),
  )
}

let loading: Promise<WebBundle> | null = null

/** The bundle, loaded (or built) once per process, on first use. */
export function webBundle(): Promise<WebBundle> {
  if (!loading) {
    loading = app.files ? embedded(app.files) : bundledNow(app.index)
    // A failure is not remembered: the next visit tries again (and logs again).
    loading.catch(() => (loading = null))
  }
  return loading
}
