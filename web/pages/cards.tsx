// A prompt in a list: title, description (or the search snippet with its matches marked), tags.
import type { PromptSummary } from '../api'
import { parseSnippet } from '../lib/snippet'

export function Snippet({ html }: { html: string }) {
  return <>{parseSnippet(html).map((piece, i) => (piece.marked ? <mark key={i}>{piece.text}</mark> : piece.text))}</>
}

export function PromptCard({ prompt, tagHref }: { prompt: PromptSummary; tagHref?: (tag: string) => string }) {
  return (
    <li class="card prompt-card">
      <h3 dir="auto">
        <a href={`/p/${prompt.id}`}>{prompt.title}</a>
      </h3>
      <p class="card-text" dir="auto">
        {prompt.snippet ? <Snippet html={prompt.snippet} /> : prompt.description}
      </p>
      <div class="card-meta">
        {prompt.tags.length > 0 && (
          <ul class="tags" aria-label="Tags">
            {prompt.tags.map((tag) => (
              <li key={tag}>{tagHref ? <a href={tagHref(tag)}>#{tag}</a> : <span>#{tag}</span>}</li>
            ))}
          </ul>
        )}
        <span class="favorites-count" title="Favorites">
          <span aria-hidden="true">★</span> {prompt.favorite_count}
          <span class="visually-hidden"> favorites</span>
        </span>
      </div>
    </li>
  )
}
