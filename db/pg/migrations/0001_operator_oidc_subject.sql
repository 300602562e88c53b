ALTER TABLE "operators" ADD COLUMN "oidc_subject" text;--> statement-breakpoint
ALTER TABLE "operators" ADD CONSTRAINT "operators_oidc_subject_unique" UNIQUE("oidc_subject");