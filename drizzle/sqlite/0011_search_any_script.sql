-- The full-text indexes again, for two reasons (the search code passes each word as typed and
-- lets FTS5 fold it, src/lib/search/fts5.ts):
-- 1. Combining marks are part of a word (categories 'L* N* Co M*'). unicode61 cut words at the
--    vowel signs of Devanagari, Bengali, Tamil, Thai… and the search's words never matched
--    what was indexed; now a word is what the search cuts it to (letters, digits and marks),
--    and remove_diacritics still drops the Latin, Greek and Cyrillic accents.
-- 2. The index over whole prompts keeps which columns a word is in but not where
--    (detail='column'): it only decides what matches (no phrase is ever asked for, and ranking
--    runs on the heads index), and without positions it is smaller, a 100,000-prompt import
--    is a second faster and counting matches is faster (bench-search.ts).
-- Rebuilt from the rows: a few seconds per 100,000 prompts, once.
DROP TABLE `prompts_head_vocab`;
--> statement-breakpoint
DROP TABLE `prompts_head_fts`;
--> statement-breakpoint
DROP TABLE `prompts_fts`;
--> statement-breakpoint
DROP TABLE `skills_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `prompts_fts` USING fts5(
	title, description, content, tags, facets,
	content='prompts', content_rowid='seq', detail='column',
	tokenize="unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `prompts_head_fts` USING fts5(
	title, description, tags, facets,
	content='prompts', content_rowid='seq',
	tokenize="unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `prompts_head_vocab` USING fts5vocab('prompts_head_fts', 'row');
--> statement-breakpoint
CREATE VIRTUAL TABLE `skills_fts` USING fts5(
	name, description, instructions, tags, facets,
	content='skills', content_rowid='seq',
	tokenize="unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
);
--> statement-breakpoint
INSERT INTO `prompts_fts` (`prompts_fts`) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO `prompts_head_fts` (`prompts_head_fts`) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO `skills_fts` (`skills_fts`) VALUES ('rebuild');
