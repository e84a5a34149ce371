-- What drizzle-kit does not model for the catalogue on PostgreSQL.
-- favorite_count follows the favorites table exactly, in the same transaction as the change,
-- whatever deletes the row (the user, an account deletion cascading here, a removed prompt).
-- The prompt's row lock serialises concurrent changes, so the count is exact across instances.
CREATE FUNCTION favorites_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		UPDATE prompts SET favorite_count = favorite_count + 1 WHERE id = NEW.prompt_id;
	ELSE
		UPDATE prompts SET favorite_count = greatest(favorite_count - 1, 0) WHERE id = OLD.prompt_id;
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER favorites_count_insert AFTER INSERT ON favorites FOR EACH ROW EXECUTE FUNCTION favorites_count();
--> statement-breakpoint
CREATE TRIGGER favorites_count_delete AFTER DELETE ON favorites FOR EACH ROW EXECUTE FUNCTION favorites_count();
--> statement-breakpoint
-- The one row of catalogue_state: its revision tells every instance when to reload its category tree.
INSERT INTO catalogue_state (id, revision) VALUES (1, 0);
--> statement-breakpoint
-- prompt_search rows stay narrow (every search visits one per candidate): once a row is toasted
-- at all (PostgreSQL does so only above ~2 KB), the words vector, which searches reach only
-- through its index, goes out of line down to 512 bytes; the head, which ranking reads, stays in
-- the row (compressed there only when long).
ALTER TABLE prompt_search SET (toast_tuple_target = 512);
--> statement-breakpoint
ALTER TABLE prompt_search ALTER COLUMN head SET STORAGE MAIN;
--> statement-breakpoint
-- No statistics on the words: with them the planner answers "the first 1,000 matches of a common
-- word" with a sequential scan that reads every row's vector out of line (40 ms instead of 3 ms
-- on 100,000 prompts); without, it estimates few matches and always goes through the index.
ALTER TABLE prompt_search ALTER COLUMN words SET STATISTICS 0;
--> statement-breakpoint
-- Prompt text and word vectors are compressed with lz4 where the server has it (PostgreSQL 14+
-- built with lz4, as the common packages are): a large import spent a sixth of its PostgreSQL
-- time in the default pglz (bench-search.ts). Elsewhere the default stays.
DO $$
BEGIN
	ALTER TABLE prompts ALTER COLUMN content SET COMPRESSION lz4;
	ALTER TABLE prompt_search ALTER COLUMN words SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR syntax_error THEN
	NULL;
END
$$;
