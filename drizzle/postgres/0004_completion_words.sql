-- The words of the search rows, so that an unfinished last word is expanded to the words that
-- begin with it (search.pg.ts): the GIN index then intersects exact entries, where a `:*` prefix
-- gathered every posting of every such word first. Kept by statement triggers on prompt_search, so
-- every writer keeps it whole (an older binary during a rolling upgrade, `db copy`'s rebuild), and
-- never trimmed: a superset of the words, which is all a completion needs. Filled once here.
CREATE TABLE "prompt_words" (
	"word" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE INDEX "prompt_words_bytewise" ON "prompt_words" USING btree ("word" COLLATE "C");--> statement-breakpoint
CREATE FUNCTION prompt_words_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- a words vector also holds its window term (w:N); no typed word has a colon
	INSERT INTO prompt_words (word)
	SELECT DISTINCT w FROM written, unnest(tsvector_to_array(written.words)) AS w WHERE position(':' in w) = 0
	ON CONFLICT DO NOTHING;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER prompt_words_on_insert AFTER INSERT ON prompt_search REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION prompt_words_add();
--> statement-breakpoint
CREATE TRIGGER prompt_words_on_update AFTER UPDATE ON prompt_search REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION prompt_words_add();
--> statement-breakpoint
INSERT INTO "prompt_words" ("word")
SELECT DISTINCT w FROM "prompt_search", unnest(tsvector_to_array("words")) AS w WHERE position(':' in w) = 0
ON CONFLICT DO NOTHING;
