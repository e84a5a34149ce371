CREATE TABLE "settings" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "server_instances" (
	"id" text PRIMARY KEY NOT NULL,
	"hostname" text NOT NULL,
	"pid" integer NOT NULL,
	"process_start" text,
	"started_at" timestamp (3) with time zone NOT NULL,
	"heartbeat_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "optimization_history" ALTER COLUMN "prompt" SET DATA TYPE bytea USING convert_to("prompt", 'UTF8');--> statement-breakpoint
ALTER TABLE "optimization_history" ALTER COLUMN "optimized_prompt" SET DATA TYPE bytea USING convert_to("optimized_prompt", 'UTF8');--> statement-breakpoint
ALTER TABLE "optimization_history" ADD COLUMN "instance_id" text;--> statement-breakpoint
ALTER TABLE "optimization_history" ADD COLUMN "first_text_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "optimization_history_running_instance_idx" ON "optimization_history" USING btree ("instance_id") WHERE "optimization_history"."status" = 'running';