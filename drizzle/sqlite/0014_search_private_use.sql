-- The full-text indexes again, for one reason and one saving (the search code: src/lib/search):
-- 1. A private-use character (U+E000–U+F8FF, category Co) no longer belongs to a word. The
--    query cuts typed text into letters, digits and marks, as PostgreSQL's vectors do, but these
--    indexes kept Co inside words: "foo<U+E000>bar" was indexed as one word and the query asked
--    for "foo" and "bar", so such a prompt was found on PostgreSQL and never on SQLite.
-- 2. The index over whole prompts only decides what matches (ranking runs on the heads index),
--    so it keeps no column sizes (columnsize=0): one row less per prompt to write.
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
	content='prompts', content_rowid='seq', detail='column', columnsize=0,
	tokenize="unicode61 remove_diacritics 2 categories 'L* N* M*'"
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `prompts_head_fts` USING fts5(
	title, description, tags, facets,
	content='prompts', content_rowid='seq',
	tokenize="unicode61 remove_diacritics 2 categories 'L* N* M*'"
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `prompts_head_vocab` USING fts5vocab('prompts_head_fts', 'row');
--> statement-breakpoint
CREATE VIRTUAL TABLE `skills_fts` USING fts5(
	name, description, instructions, tags, facets,
	content='skills', content_rowid='seq',
	tokenize="unicode61 remove_diacritics 2 categories 'L* N* M*'"
);
--> statement-breakpoint
INSERT INTO `prompts_fts` (`prompts_fts`) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO `prompts_head_fts` (`prompts_head_fts`) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO `skills_fts` (`skills_fts`) VALUES ('rebuild');
