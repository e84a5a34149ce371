CREATE TABLE `optimization_history` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`mode` text NOT NULL,
	`prompt` text NOT NULL,
	`target_model` text,
	`optimized_prompt` text,
	`engine` text NOT NULL,
	`model` text,
	`status` text NOT NULL,
	`error_code` text,
	`input_tokens` integer,
	`output_tokens` integer,
	`created_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `optimization_history_user_created_idx` ON `optimization_history` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `optimization_history_running_idx` ON `optimization_history` (`user_id`,`created_at`) WHERE "optimization_history"."status" = 'running';