// The web app's files, bundled by Bun from two HTML imports: web/index.html (the app: its script,
// stylesheet and icon) and web/markdown.html (the Markdown renderer, a script of its own that only
// skill pages load). In the compiled binary (and any ahead-of-time `bun build`) Bun has bundled them
// already and embedded the files: each import is a manifest listing them. Run from source an import
// is only the HTML file's path, and it is bundled here, in memory, with the same settings as the
// binary's build (`--minify-syntax`, no source maps), so both serve the same kind of files.
import { basename } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { HTMLBundle } from 'bun'
import app from '../../web/index.html'
import markdown from '../../web/markdown.html'

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
  /** the files the page and the Markdown renderer use, by URL path; their names carry a content hash */
  assets: Map<string, WebAsset>
}

interface BuiltFile {
  name: string
  type: string
  body: Uint8Array
  etag?: string
}

/** One HTML entry's page and the files it names. */
interface Built {
  html: string
  files: BuiltFile[]
}

function asset(path: string, type: string, body: Uint8Array, etag?: string): WebAsset {
  const gzipped = gzipSync(body, { level: 9 })
  return { path, type, etag: `"${etag ?? Bun.hash(body).toString(36)}"`, body, gzip: gzipped.byteLength < body.byteLength ? gzipped : null }
}

/** The page of an entry and the files it names (`src="/…"`, `href="/…"`), from the bundler's list. */
function split(entry: HTMLBundle, files: (BuiltFile & { path: string })[]): Built {
  const page = files.find((f) => f.path === entry.index) ?? files.find((f) => f.type.startsWith('text/html'))
  if (!page) throw new Error(`the web bundle of ${entry.index} has no HTML page`)
  const html = new TextDecoder().decode(page.body)
  const named = new Set([...html.matchAll(/\s(?:src|href)="\/([^"/]+)"/g)].map((m) => m[1]!))
  return { html, files: files.filter((f) => named.has(f.name)) }
}

async function embedded(entry: HTMLBundle): Promise<Built> {
  const files = await Promise.all(
    entry.files!.map(async (file) => ({
      path: file.path,
      name: basename(file.path),
      type: file.headers['content-type'],
      etag: file.headers.etag,
      body: await Bun.file(file.path).bytes(),
    })),
  )
  return split(entry, files)
}

async function bundledNow(entry: HTMLBundle): Promise<Built> {
  const result = await Bun.build({
    entrypoints: [entry.index],
    target: 'browser',
    minify: { syntax: true },
    jsx: { development: false },
    publicPath: '/',
    sourcemap: 'none',
  })
  if (!result.success) throw new AggregateError(result.logs, 'the web app did not bundle')
  const files = await Promise.all(
    result.outputs.map(async (o) => ({ path: o.path, name: basename(o.path), type: o.type, body: new Uint8Array(await o.arrayBuffer()) })),
  )
  // The bundler names the HTML output after its source; the page is the one output that is HTML.
  return split({ ...entry, index: files.find((f) => f.type.startsWith('text/html'))?.path ?? entry.index }, files)
}

const load = (entry: HTMLBundle) => (entry.files ? embedded(entry) : bundledNow(entry))

async function assemble(): Promise<WebBundle> {
  const [page, renderer] = await Promise.all([load(app), load(markdown)])
  const script = renderer.files.find((f) => f.type.startsWith('text/javascript'))
  if (!script) throw new Error('the Markdown renderer bundled to no script')
  // The page names the renderer's script, hashed name and all, so that it can be cached for good.
  const html = page.html.replace('</head>', `<meta name="promptlib-markdown" content="/${script.name}"></head>`)
  const assets = new Map<string, WebAsset>()
  for (const file of [...page.files, script]) assets.set(`/${file.name}`, asset(`/${file.name}`, file.type, file.body, file.etag))
  return { page: asset('/', 'text/html;charset=utf-8', new TextEncoder().encode(html)), assets }
}

let loading: Promise<WebBundle> | null = null

/** The bundle, loaded (or built) once per process, on first use. */
export function webBundle(): Promise<WebBundle> {
  if (!loading) {
    loading = assemble()
    // A failure is not remembered: the next visit tries again (and logs again).
    loading.catch(() => (loading = null))
  }
  return loading
}
