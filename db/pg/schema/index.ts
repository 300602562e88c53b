/**
 * The PostgreSQL schema: db/schema's tables in drizzle's pg-core, one file per group beside its
 * SQLite original (drizzle has no table shared by both dialects). Kinds map as SQLite stores them:
 * integer → bigint (epoch ms outgrow int4), integer booleans → boolean, JSON text → json (not
 * jsonb: json keeps each value's text as written, which the activity chain hashes), real →
 * double precision. tests/postgres/schema-parity.test.ts holds the two schemas equal.
 */
export * from './settings'
export * from './servers'
export * from './tools'
export * from './access'
export * from './activity'
export * from './definitions'
export * from './operators'
export * from './triage'
