ALTER TABLE "prompt_search" ADD COLUMN "type" text DEFAULT 'text' NOT NULL;--> statement-breakpoint
ALTER TABLE "prompts" ADD COLUMN "type" text DEFAULT 'text' NOT NULL;