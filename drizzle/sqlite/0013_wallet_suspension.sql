ALTER TABLE `subscriptions` ADD `suspended_version` text;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `resumed_version` text;