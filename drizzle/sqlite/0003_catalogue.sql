CREATE TABLE `catalogue_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`revision` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `categories` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`icon` text DEFAULT '' NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `prompt_tags` (
	`tag` text NOT NULL,
	`prompt_seq` integer NOT NULL,
	PRIMARY KEY(`tag`, `prompt_seq`),
	FOREIGN KEY (`prompt_seq`) REFERENCES `prompts`(`seq`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `prompt_tags_prompt` ON `prompt_tags` (`prompt_seq`);--> statement-breakpoint
CREATE TABLE `prompts` (
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
	`content` text NOT NULL,
	FOREIGN KEY (`category_id`) REFERENCES `categories`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`category_id`,`subcategory_id`) REFERENCES `subcategories`(`category_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `prompts_id_unique` ON `prompts` (`id`);--> statement-breakpoint
CREATE INDEX `prompts_popular` ON `prompts` (`category_id`,"favorite_count" DESC,"created_at" DESC);--> statement-breakpoint
CREATE INDEX `prompts_newest` ON `prompts` (`category_id`,"created_at" DESC);--> statement-breakpoint
CREATE INDEX `prompts_title` ON `prompts` (`category_id`,"title" COLLATE NOCASE);--> statement-breakpoint
CREATE INDEX `prompts_subcategory` ON `prompts` (`category_id`,`subcategory_id`);--> statement-breakpoint
CREATE TABLE `subcategories` (
	`category_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`category_id`, `id`),
	FOREIGN KEY (`category_id`) REFERENCES `categories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `skills` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`category` text NOT NULL,
	`tags` text DEFAULT '' NOT NULL,
	`license` text,
	`compatibility` text,
	`allowed_tools` text DEFAULT '[]' NOT NULL,
	`metadata` text,
	`files` text DEFAULT '[]' NOT NULL,
	`facets` text DEFAULT '' NOT NULL,
	`source_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`instructions` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `skills_id_unique` ON `skills` (`id`);--> statement-breakpoint
CREATE TABLE `favorites` (
	`user_id` text NOT NULL,
	`prompt_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `prompt_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`prompt_id`) REFERENCES `prompts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `favorites_newest` ON `favorites` (`user_id`,`created_at`);