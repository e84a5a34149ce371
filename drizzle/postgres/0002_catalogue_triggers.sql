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
