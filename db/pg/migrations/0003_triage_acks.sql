CREATE TABLE "triage_acks" (
	"key" text PRIMARY KEY NOT NULL,
	"fingerprint" text NOT NULL,
	"until" bigint,
	"actor" text NOT NULL,
	"at" bigint NOT NULL
);
