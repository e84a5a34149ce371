-- A second, small full-text index over the prompts' "heads" (title, description, tags; facets for
-- the filters, weight 0): search ranks by bm25 here. Ranking with bm25 over the full index
-- (content included) costs a pass over every query word's whole index entries, several
-- milliseconds per search on 100,000 prompts; the heads are a twentieth of the text. The full
-- index still decides what matches (and counts it). Written by the catalogue store in the same
-- transaction as the prompt, like prompts_fts.
CREATE VIRTUAL TABLE `prompts_head_fts` USING fts5(
	title, description, tags, facets,
	content='prompts', content_rowid='seq',
	tokenize='unicode61 remove_diacritics 2'
);
--> statement-breakpoint
INSERT INTO `prompts_head_fts` (`prompts_head_fts`) VALUES ('rebuild');
--> statement-breakpoint
-- The words of the heads with their document counts: completions for the last, unfinished word.
CREATE VIRTUAL TABLE `prompts_head_vocab` USING fts5vocab('prompts_head_fts', 'row');
