ALTER TABLE "subscriptions" ADD COLUMN "suspended_version" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "resumed_version" text;