// The words an unfinished last word of a search completes to, on SQLite: prompt_words (migration
// 0016), every word of the whole-prompt index (title, description, content, tags) but its facet
// tokens. The catalogue store keeps it in the transaction of its writes:
//   - the prompts a batch wrote are cut into words by FTS5 itself, in a temporary index with
//     prompts_fts's tokenizer, so the list holds exactly the words prompts_fts holds (23 ms per
//     1,000 generated prompts);
//   - an import that set its index work aside (into an almost empty catalogue) reads the whole
//     list again from prompts_fts at its end instead (100,000 prompts: 0.49 s, where probing
//     every batch took 2.3 s).
// A word whose last prompt changed stays listed until such a full read: it completes to a word
// that finds nothing, which costs a query one more OR term, never a result.
import type { SqliteDb } from '../../db/storage'

/** prompts_fts's tokenizer (migration 0014): the probe must cut and fold words exactly as it does. */
export const PROMPTS_TOKENIZER = "unicode61 remove_diacritics 2 categories 'L* N* M*'"

/**
 * Temporary tables live in the connection's temp schema and belong to the transaction that created
 * them: a rolled-back one takes them along. So they are created again when missing, and the mark of
 * an import that reads the words at its end can never outlive that import.
 */
function probe(db: SqliteDb) {
  const c = db.$client
  // Contentless and without positions: the probe keeps nothing but its words, and empties at once.
  c.run(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.prompt_word_probe USING fts5(text, content='', detail='none', tokenize="${PROMPTS_TOKENIZER}")`)
  c.run("CREATE VIRTUAL TABLE IF NOT EXISTS temp.prompt_word_probe_vocab USING fts5vocab(temp, 'prompt_word_probe', 'row')")
  return {
    // The connection keeps these prepared by their text (db/sqlite/client.ts).
    add: c.prepare<never, [string]>('INSERT INTO temp.prompt_word_probe (text) VALUES (?)'),
    keep: c.prepare('INSERT OR IGNORE INTO prompt_words (word) SELECT term FROM temp.prompt_word_probe_vocab'),
    empty: c.prepare("INSERT INTO temp.prompt_word_probe (prompt_word_probe) VALUES ('delete-all')"),
  }
}

export interface PromptText {
  title: string
  description: string
  content: string
  /** joined as stored */
  tags: string
}

/** Adds the words of prompts just written, unless their import reads all of them at its end. */
export function keepWordsOf(db: SqliteDb, prompts: readonly PromptText[]): void {
  if (prompts.length === 0 || wordsSetAside(db)) return
  const p = probe(db)
  // A line break between fields: no word runs from one into the next.
  for (const { title, description, tags, content } of prompts) p.add.run(`${title}\n${description}\n${tags}\n${content}`)
  p.keep.run()
  p.empty.run()
}

/** From now to the end of this transaction, keepWordsOf leaves the words to readAllWords. */
export function setWordsAside(db: SqliteDb): void {
  db.$client.run('CREATE TEMP TABLE IF NOT EXISTS prompt_words_set_aside (one)')
}

const wordsSetAside = (db: SqliteDb) => db.$client.query('SELECT 1 FROM temp.sqlite_master WHERE name = ?').get('prompt_words_set_aside') !== null

/** The whole list read again from prompts_fts (inside the transaction that set it aside). */
export function readAllWords(db: SqliteDb): void {
  const c = db.$client
  c.run('DROP TABLE IF EXISTS temp.prompt_words_set_aside')
  c.run('DELETE FROM prompt_words')
  c.run("INSERT OR IGNORE INTO prompt_words (word) SELECT term FROM prompts_vocab WHERE col <> 'facets'")
}
