CREATE TABLE `server_instances` (
	`id` text PRIMARY KEY NOT NULL,
	`hostname` text NOT NULL,
	`pid` integer NOT NULL,
	`process_start` text,
	`started_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `optimization_history` ADD `instance_id` text;--> statement-breakpoint
ALTER TABLE `optimization_history` ADD `first_text_at` integer;--> statement-breakpoint
CREATE INDEX `optimization_history_running_instance_idx` ON `optimization_history` (`instance_id`) WHERE "optimization_history"."status" = 'running';