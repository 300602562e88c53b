ALTER TABLE "servers" ADD COLUMN "inspect_failed_at" bigint;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "inspect_error" text;