CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`password_hash` text,
	`email_verified` integer DEFAULT false NOT NULL,
	`tier` text DEFAULT 'free' NOT NULL,
	`tokens_not_before` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `daily_usage` (
	`subject` text NOT NULL,
	`metric` text NOT NULL,
	`day` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`subject`, `metric`, `day`)
);
--> statement-breakpoint
CREATE TABLE `daily_usage_items` (
	`subject` text NOT NULL,
	`metric` text NOT NULL,
	`day` text NOT NULL,
	`item` text NOT NULL,
	PRIMARY KEY(`subject`, `metric`, `day`, `item`)
);
--> statement-breakpoint
CREATE TABLE `rate_windows` (
	`key` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL
);
