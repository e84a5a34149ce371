-- The words an unfinished last word of a search completes to: every word of every prompt (title,
-- description, content, tags), as prompts_fts indexed it. They came from the heads index alone,
-- so a prefix of a word found only in a prompt's content matched nothing ("photosynth" did not
-- find "photosynthesis" in a content), where the contract asks for a prefix match on the full
-- text, and PostgreSQL gives one. A table of its own, because reading the words of the whole-prompt
-- index through fts5vocab reads every matching word's entries (0.2 ms at the median for one prefix
-- on 100,000 prompts, 5 ms at worst); this is a range of a b-tree (2 µs). The catalogue store
-- keeps it (src/features/catalogue/search-words.sqlite.ts); facet tokens are not words.
CREATE VIRTUAL TABLE `prompts_vocab` USING fts5vocab('prompts_fts', 'col');
--> statement-breakpoint
CREATE TABLE `prompt_words` (`word` text PRIMARY KEY NOT NULL) WITHOUT ROWID;
--> statement-breakpoint
INSERT OR IGNORE INTO `prompt_words` (`word`) SELECT `term` FROM `prompts_vocab` WHERE `col` <> 'facets';
--> statement-breakpoint
DROP TABLE `prompts_head_vocab`;
