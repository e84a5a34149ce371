CREATE TABLE "oauth_identities" (
	"provider" text NOT NULL,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"user_id" text NOT NULL,
	"email" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"last_sign_in_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "oauth_identities_provider_issuer_subject_pk" PRIMARY KEY("provider","issuer","subject")
);
--> statement-breakpoint
ALTER TABLE "oauth_identities" ADD CONSTRAINT "oauth_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oauth_identities_user" ON "oauth_identities" USING btree ("user_id");