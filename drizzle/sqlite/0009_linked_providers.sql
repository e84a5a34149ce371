ALTER TABLE `users` ADD `linked_providers` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Accounts linked before the column existed: their providers, from the identities oauth keeps.
UPDATE `users` SET `linked_providers` = coalesce((SELECT group_concat(`provider`, ' ') FROM (SELECT DISTINCT `provider` FROM `oauth_identities` WHERE `user_id` = `users`.`id` ORDER BY `provider`)), '');
