ALTER TABLE "agent_tokens" ADD COLUMN "expires_at" bigint;--> statement-breakpoint
ALTER TABLE "agent_tokens" ADD COLUMN "last_used_at" bigint;