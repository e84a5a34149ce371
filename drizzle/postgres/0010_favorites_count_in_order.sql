-- favorite_count on deletions, once per statement and in the order of the prompts' ids. Row by
-- row, each deleted favorite locked its prompt in the order the rows were deleted: two accounts
-- that had favorited the same prompts in other orders, deleted at once, deadlocked (40P01) and one
-- DELETE /api/user/me failed. Locking every affected prompt first, by id, gives every deletion
-- the same order. (Insertions stay row by row: a favorite is added one at a time.)
CREATE FUNCTION favorites_count_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM 1 FROM prompts WHERE id IN (SELECT prompt_id FROM removed) ORDER BY id FOR UPDATE;
	UPDATE prompts p SET favorite_count = greatest(p.favorite_count - r.n, 0)
	FROM (SELECT prompt_id, count(*)::int AS n FROM removed GROUP BY prompt_id) r
	WHERE p.id = r.prompt_id;
	RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER favorites_count_delete ON favorites;
--> statement-breakpoint
CREATE TRIGGER favorites_count_delete AFTER DELETE ON favorites REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION favorites_count_removed();
