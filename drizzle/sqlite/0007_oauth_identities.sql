CREATE TABLE `oauth_identities` (
	`provider` text NOT NULL,
	`issuer` text NOT NULL,
	`subject` text NOT NULL,
	`user_id` text NOT NULL,
	`email` text,
	`created_at` integer NOT NULL,
	`last_sign_in_at` integer NOT NULL,
	PRIMARY KEY(`provider`, `issuer`, `subject`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `oauth_identities_user` ON `oauth_identities` (`user_id`);