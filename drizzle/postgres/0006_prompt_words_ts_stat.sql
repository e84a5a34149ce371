-- The same words into prompt_words (0004), gathered by ts_stat, which walks the vectors' lexemes
-- natively, where unnest(tsvector_to_array(...)) made a text value of every word of every row and
-- then de-duplicated them: a batch of 1,000 generated prompts (170,000 words) took 50 ms that way,
-- 18 ms this way; a 100,000-prompt import 36.8–39.3 s → 33.8–36.4 s (alternated, five pairs).
-- ts_stat runs its query apart, where the trigger's transition table is not visible: it reads the
-- written rows again by their numbers (integers: nothing in the literal is typed text).
CREATE OR REPLACE FUNCTION prompt_words_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- a words vector also holds its window term (w:N); no typed word has a colon
	INSERT INTO prompt_words (word)
	SELECT word FROM ts_stat(format('SELECT words FROM prompt_search WHERE prompt_seq = ANY (%L::bigint[])', (SELECT array_agg(prompt_seq) FROM written)))
	WHERE position(':' in word) = 0
	ON CONFLICT DO NOTHING;
	RETURN NULL;
END $$;
