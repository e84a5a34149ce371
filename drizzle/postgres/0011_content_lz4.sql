-- The large texts compressed with lz4 where the server was built with it (Debian's and the
-- official images are): PostgreSQL compresses a 100,000-prompt import's contents in less than
-- half the time pglz takes, and reads them back (a prompt's page, a search's snippets) faster.
-- Only values written from now on; older ones keep pglz, and both read alike.
DO $$
BEGIN
  ALTER TABLE "prompts" ALTER COLUMN "content" SET COMPRESSION lz4;
  ALTER TABLE "skills" ALTER COLUMN "instructions" SET COMPRESSION lz4;
  ALTER TABLE "skills" ALTER COLUMN "files" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL; -- built without lz4: pglz, as before
END $$;
