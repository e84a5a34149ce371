// Skills (pro and lifetime): a list to search as you type, and each skill's instructions rendered
// from Markdown (sanitized) with its files. Below pro: what skills are and how to get them.
import { type ComponentChildren, Fragment } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, getJson, type Page as ApiPage, query, type Skill } from '../api'
import { loadMarkdown } from '../markdown-loader'
import { navigate, useLocation, withQuery } from '../router'
import { useSession } from '../session'
import { ErrorNotice, Loading, Page, Pager, SignInPrompt, UpgradePrompt, useApi, useLastPage } from '../ui'
import { Snippet } from './cards'

const LIMIT = 20

function Gate({ children }: { children: ComponentChildren }) {
  const session = useSession()
  if (!session.token) return <SignInPrompt what="use skills (pro and lifetime plans)" />
  if (session.me && !session.me.limits.skills_access) return <UpgradePrompt tier="pro" what="Skills" />
  return <>{children}</>
}

function SkillList() {
  const loc = useLocation()
  const session = useSession()
  const q = loc.query.get('q') ?? ''
  const offset = Math.max(0, Number(loc.query.get('offset')) || 0)
  const list = useApi(
    (signal) =>
      getJson<ApiPage<Skill>>(q.trim() ? `/skills/search${query({ q, limit: LIMIT, offset })}` : `/skills${query({ limit: LIMIT, offset })}`, {
        signal,
      }),
    [q, offset, session.token],
  )
  const beyond = useLastPage(list.loading ? undefined : list.data?.total, LIMIT, offset, (o) => withQuery(loc, { offset: o || null }))
  return (
    <>
      <form role="search" class="filters" aria-label="Skills" onSubmit={(e) => e.preventDefault()}>
        <div class="field grow">
          <label for="skill-search">Search skills</label>
          <input
            id="skill-search"
            type="search"
            value={q}
            autocomplete="off"
            onInput={(e) => navigate(withQuery(loc, { q: e.currentTarget.value, offset: null }), { replace: true })}
          />
        </div>
      </form>
      {list.error ? (
        list.error instanceof ApiError && list.error.code === 'upgrade_required' ? (
          <UpgradePrompt tier="pro" what="Skills" />
        ) : (
          <ErrorNotice error={list.error} retry={list.reload} />
        )
      ) : !list.data || beyond ? (
        <Loading what="Loading skills" />
      ) : list.data.items.length === 0 ? (
        <p>{q.trim() ? 'No skills match.' : 'No skills in this library yet.'}</p>
      ) : (
        <>
          <ul class="list" aria-busy={list.loading}>
            {list.data.items.map((skill) => (
              <li class="card" key={skill.id}>
                <h2 class="card-title">
                  <a href={`/skills/${skill.id}`}>{skill.name}</a>
                </h2>
                <p class="card-text">{skill.snippet ? <Snippet html={skill.snippet} /> : skill.description}</p>
                <p class="muted">
                  {skill.category}
                  {skill.tags.length > 0 && ` · ${skill.tags.map((t) => `#${t}`).join(' ')}`}
                </p>
              </li>
            ))}
          </ul>
          <Pager label="Skills" total={list.data.total} limit={LIMIT} offset={offset} href={(o) => withQuery(loc, { offset: o || null })} />
        </>
      )}
    </>
  )
}

export function SkillsPage() {
  return (
    <Page title="Skills" lead="Agent Skills: instructions and files that teach an AI agent a task.">
      <Gate>
        <SkillList />
      </Gate>
    </Page>
  )
}

function Markdown({ text }: { text: string }) {
  const box = useRef<HTMLDivElement>(null)
  const [state, setState] = useState<'loading' | 'shown' | unknown>('loading')
  // Sanitized DOM nodes go in as they are (markdown.ts); Preact leaves this element's children alone.
  useEffect(() => {
    let live = true
    loadMarkdown().then(
      (render) => {
        if (!live) return
        box.current?.replaceChildren(render(text))
        setState('shown')
      },
      (error) => live && setState(error),
    )
    return () => void (live = false)
  }, [text])
  return (
    <>
      {state === 'loading' && <Loading what="Loading the instructions" />}
      {state !== 'loading' && state !== 'shown' && <ErrorNotice error={state} />}
      <div class="markdown" ref={box} />
    </>
  )
}

export function SkillPage({ id }: { id: string }) {
  const session = useSession()
  const skill = useApi(
    (signal) => (session.token ? getJson<Skill>(`/skills/${encodeURIComponent(id)}`, { signal }) : Promise.resolve(null)),
    [id, session.token],
  )
  if (!session.token || (session.me && !session.me.limits.skills_access)) {
    return (
      <Page title="Skill">
        <Gate>{null}</Gate>
      </Page>
    )
  }
  if (skill.error) {
    return (
      <Page title="Skill not available">
        {skill.error instanceof ApiError && skill.error.code === 'upgrade_required' ? (
          <UpgradePrompt tier="pro" what="Skills" />
        ) : (
          <ErrorNotice error={skill.error} retry={skill.reload} />
        )}
        <p>
          <a href="/skills">All skills</a>
        </p>
      </Page>
    )
  }
  if (!skill.data) return <Loading what="Loading the skill" />
  const s = skill.data
  return (
    <Page title={s.name} lead={s.description}>
      <dl class="facts card">
        <dt>Category</dt>
        <dd>{s.category}</dd>
        {s.tags.length > 0 && (
          <>
            <dt>Tags</dt>
            <dd>{s.tags.map((t) => `#${t}`).join(' ')}</dd>
          </>
        )}
        <dt>License</dt>
        <dd>{s.license ?? '—'}</dd>
        {s.compatibility && (
          <>
            <dt>Compatibility</dt>
            <dd>{s.compatibility}</dd>
          </>
        )}
        {s.allowed_tools.length > 0 && (
          <>
            <dt>Allowed tools</dt>
            <dd>{s.allowed_tools.join(', ')}</dd>
          </>
        )}
        {s.metadata &&
          Object.entries(s.metadata).map(([key, value]) => (
            <Fragment key={key}>
              <dt>{key}</dt>
              <dd>{value}</dd>
            </Fragment>
          ))}
      </dl>
      <section aria-labelledby="instructions-heading">
        <h2 id="instructions-heading">Instructions</h2>
        <Markdown text={s.instructions ?? ''} />
      </section>
      <section aria-labelledby="files-heading">
        <h2 id="files-heading">Files</h2>
        {s.files.length === 0 ? (
          <p>Only SKILL.md.</p>
        ) : (
          <ul class="files">
            <li>
              <code>SKILL.md</code>
            </li>
            {s.files.map((f) => (
              <li key={f}>
                <code>{f}</code>
              </li>
            ))}
          </ul>
        )}
      </section>
      <p>
        <a href="/skills">All skills</a>
      </p>
    </Page>
  )
}
