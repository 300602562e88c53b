ALTER TABLE "server_connections" ADD COLUMN "protocol_version" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "sampling" text DEFAULT 'relay' NOT NULL;