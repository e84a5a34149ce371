-- Full-text indexes over prompts and skills (FTS5, external content: the text lives once, in
-- prompts/skills). They are written explicitly by the catalogue store in the same transaction as
-- the row (src/features/catalogue/store.ts, src/features/skills/store.ts), not by triggers: an
-- FTS5 insert inside a trigger flushes FTS5's in-memory segment on every row, which made a
-- 100,000-prompt import three times slower.
-- `facets` holds hex-encoded filter tokens (c… category, s… subcategory, t… tag) so the search
-- filters are intersected inside the index; its bm25 weight is 0.
CREATE VIRTUAL TABLE `prompts_fts` USING fts5(
	title, description, content, tags, facets,
	content='prompts', content_rowid='seq',
	tokenize='unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `skills_fts` USING fts5(
	name, description, instructions, tags, facets,
	content='skills', content_rowid='seq',
	tokenize='unicode61 remove_diacritics 2'
);
--> statement-breakpoint
-- favorite_count follows the favorites table exactly, in the same transaction as the change.
CREATE TRIGGER `favorites_count_insert` AFTER INSERT ON `favorites` BEGIN
	UPDATE prompts SET favorite_count = favorite_count + 1 WHERE id = new.prompt_id;
END;
--> statement-breakpoint
CREATE TRIGGER `favorites_count_delete` AFTER DELETE ON `favorites` BEGIN
	UPDATE prompts SET favorite_count = max(favorite_count - 1, 0) WHERE id = old.prompt_id;
END;
--> statement-breakpoint
INSERT INTO `catalogue_state` (id, revision) VALUES (1, 0);
