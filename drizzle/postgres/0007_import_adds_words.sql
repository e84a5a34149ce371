-- An import adds the words of the prompts it inserts to prompt_words itself, once per batch from
-- the words it built (catalogue/store.pg.ts), and says so for its transaction with the setting
-- promptlib.words_added_by_writer: the trigger then skips those inserts. Run per statement, it
-- took an eighth of PostgreSQL's time in a 100,000-prompt import (perf), gathering the same 3,000
-- words again for every 250 rows. Every other write (and an import's updates) still runs it.
CREATE OR REPLACE FUNCTION prompt_words_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('promptlib.words_added_by_writer', true) = 'on' THEN
		RETURN NULL;
	END IF;
	-- a words vector also holds its window term (w:N); no typed word has a colon
	INSERT INTO prompt_words (word)
	SELECT word FROM ts_stat(format('SELECT words FROM prompt_search WHERE prompt_seq = ANY (%L::bigint[])', (SELECT array_agg(prompt_seq) FROM written)))
	WHERE position(':' in word) = 0
	ON CONFLICT DO NOTHING;
	RETURN NULL;
END $$;
