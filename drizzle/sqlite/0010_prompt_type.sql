-- A prompt's type (prompts.chat's TEXT, STRUCTURED, IMAGE, … in lower case). The prompts table is
-- rebuilt rather than altered: ALTER TABLE ADD COLUMN would put `type` after `content`, and
-- reading a column stored after a long content walks its overflow pages (listings and search
-- read the summary columns of every hit). Row ids (`seq`) are kept, so the full-text indexes,
-- tags and favorites stay valid. The migration runner turns foreign keys off around migrations
-- (dropping the old table must not cascade to tags) and checks them before it commits.
CREATE TABLE `__new_prompts` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`category_id` text NOT NULL,
	`subcategory_id` text,
	`tags` text DEFAULT '' NOT NULL,
	`favorite_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`facets` text DEFAULT '' NOT NULL,
	`source_hash` text NOT NULL,
	`preview` text NOT NULL,
	`type` text DEFAULT 'text' NOT NULL,
	`content` text NOT NULL,
	FOREIGN KEY (`category_id`) REFERENCES `categories`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`category_id`,`subcategory_id`) REFERENCES `subcategories`(`category_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_prompts` (`seq`, `id`, `title`, `description`, `category_id`, `subcategory_id`, `tags`, `favorite_count`, `created_at`, `updated_at`, `facets`, `source_hash`, `preview`, `type`, `content`)
SELECT `seq`, `id`, `title`, `description`, `category_id`, `subcategory_id`, `tags`, `favorite_count`, `created_at`, `updated_at`, `facets`, `source_hash`, `preview`, 'text', `content` FROM `prompts`;
--> statement-breakpoint
DROP TABLE `prompts`;
--> statement-breakpoint
-- The favorites triggers name `prompts`, which does not exist for a moment: the legacy rename
-- neither checks nor rewrites them (they name the new table once it is renamed).
PRAGMA legacy_alter_table = ON;
--> statement-breakpoint
ALTER TABLE `__new_prompts` RENAME TO `prompts`;
--> statement-breakpoint
PRAGMA legacy_alter_table = OFF;
--> statement-breakpoint
CREATE UNIQUE INDEX `prompts_id_unique` ON `prompts` (`id`);
--> statement-breakpoint
CREATE INDEX `prompts_popular` ON `prompts` (`category_id`,"favorite_count" DESC,"created_at" DESC);
--> statement-breakpoint
CREATE INDEX `prompts_newest` ON `prompts` (`category_id`,"created_at" DESC);
--> statement-breakpoint
CREATE INDEX `prompts_title` ON `prompts` (`category_id`,"title" COLLATE NOCASE);
--> statement-breakpoint
CREATE INDEX `prompts_subcategory` ON `prompts` (`category_id`,`subcategory_id`);
