import { defineConfig } from 'drizzle-kit'

// The PostgreSQL dialect's migrations, generated beside SQLite's (drizzle.config.ts): npm run db:generate:pg
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/pg/schema/index.ts',
  out: './db/pg/migrations',
})
