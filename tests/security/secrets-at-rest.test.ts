import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { openDb, type Db } from '@/db/client'
import { managedServers } from '@/db/queries/servers'
import { oauthOf } from '@/db/queries/upstream'
import { listActivity } from '@/db/queries/activity'
import { addServer } from '@/lib/admin/upstreams'
import { configureOAuthClient, DbOAuthProvider } from '@/lib/upstream/oauth'
import { freshDb, tempDbFile } from '@/tests/helpers/db'
import { runCli } from '@/tests/helpers/cli'
import { startServer } from '@/tests/helpers/server'

const ctx = { actor: 'test' }
const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC-private-key-body\n-----END PRIVATE KEY-----\n'
const PLAIN = ['Bearer header-secret-0001', 'env-secret-0002', 'client-secret-0003', 'access-token-0004', 'private-key-body']
const mode = (p: string) => statSync(p).mode & 0o777
/** Everything on disk for this database: the file and its WAL. */
const bytesOf = (file: string) => Buffer.concat([file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f))).toString('latin1')
const rawSecretColumns = (file: string) => {
  const raw = new Database(file, { readonly: true })
  try {
    return [
      ...raw.prepare('select value from server_secrets').pluck().all(),
      ...raw.prepare('select client_information, tokens, code_verifier, private_key_pem from server_oauth').raw().all().flat(),
    ].filter((v) => v !== null) as string[]
  } finally {
    raw.close()
  }
}

/** One server of each kind, with every kind of secret toolgate stores. */
async function storeEverySecret(db: Db) {
  await addServer(db, { name: 'wiki', transport: { url: 'https://wiki.example/mcp', headers: { Authorization: PLAIN[0] } }, trusted: true }, ctx)
  await addServer(db, { name: 'files', transport: { command: 'node', args: ['files.mjs'], env: { TOKEN: PLAIN[1] } }, trusted: true }, ctx)
  await configureOAuthClient(db, 'wiki', { clientId: 'toolgate', clientSecret: PLAIN[2], privateKeyPem: PEM, signingAlgorithm: 'RS256' }, ctx)
  await new DbOAuthProvider(db, 'wiki', 'https://wiki.example/mcp', 'http://127.0.0.1:9/cb', true).saveTokens({ access_token: PLAIN[3], token_type: 'Bearer' })
  await new DbOAuthProvider(db, 'wiki', 'https://wiki.example/mcp', 'http://127.0.0.1:9/cb', true).saveCodeVerifier('verifier-0005')
}

const savedKey = process.env.TOOLGATE_SECRET_KEY
afterEach(() => {
  if (savedKey === undefined) delete process.env.TOOLGATE_SECRET_KEY
  else process.env.TOOLGATE_SECRET_KEY = savedKey
})

describe('secrets at rest', () => {
  it('no secret is stored in plain text: every column is sealed, and the file holds none of the values', async () => {
    const { db, file } = freshDb()
    await storeEverySecret(db)
    const columns = rawSecretColumns(file)
    expect(columns).toHaveLength(6) // a header, an env value, the client (with its secret), tokens, the verifier, the key
    for (const v of columns) expect(v).toMatch(/^tgenc:v1:[0-9a-f]{8}:/)
    const disk = bytesOf(file)
    for (const p of [...PLAIN, 'verifier-0005']) expect(disk).not.toContain(p)
    // toolgate reads them back
    expect(managedServers(db).find((s) => s.name === 'wiki')?.secrets).toEqual({ Authorization: PLAIN[0] })
    expect(managedServers(db).find((s) => s.name === 'files')?.secrets).toEqual({ TOKEN: PLAIN[1] })
    expect(oauthOf(db, 'wiki')).toMatchObject({ clientInformation: { client_id: 'toolgate', client_secret: PLAIN[2] }, tokens: { access_token: PLAIN[3] }, privateKeyPem: PEM, codeVerifier: 'verifier-0005' })
    // the key is beside the database, the owner's alone
    expect(mode(`${file}.key`)).toBe(0o600)
    expect(readFileSync(`${file}.key`, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/)
  })

  it('a database from before encryption is sealed once when opened, on the record, and reads the same', async () => {
    const { db, file } = freshDb()
    await addServer(db, { name: 'wiki', transport: { url: 'https://wiki.example/mcp', secrets: ['Authorization'] }, trusted: true }, ctx)
    // what an earlier toolgate stored: plain text
    db.$client.prepare("insert into server_secrets (server_name, name, value, updated_at) values ('wiki', 'Authorization', ?, 1)").run(PLAIN[0])
    db.$client.prepare('insert into server_oauth (server_name, client_information, tokens, private_key_pem, updated_at) values (?, ?, ?, ?, 1)')
      .run('wiki', JSON.stringify({ client_id: 'toolgate', client_secret: PLAIN[2] }), JSON.stringify({ access_token: PLAIN[3], token_type: 'Bearer' }), PEM)
    db.$client.close()
    expect(bytesOf(file)).toContain(PLAIN[0]) // the setup is a plain-text database
    expect(existsSync(`${file}.key`)).toBe(false)

    const opened = openDb(file)
    expect(listActivity(opened, { type: 'secrets.encrypted' }).map((r) => r.data)).toEqual([{ secrets: 4 }])
    const sealed = rawSecretColumns(file)
    expect(sealed.every((v) => v.startsWith('tgenc:v1:'))).toBe(true)
    const disk = bytesOf(file)
    for (const p of [PLAIN[0], PLAIN[2], PLAIN[3], 'private-key-body']) expect(disk).not.toContain(p)
    expect(managedServers(opened)[0].secrets).toEqual({ Authorization: PLAIN[0] })
    expect(oauthOf(opened, 'wiki')).toMatchObject({ clientInformation: { client_secret: PLAIN[2] }, tokens: { access_token: PLAIN[3] }, privateKeyPem: PEM })
    opened.$client.close()

    // once: opening again changes nothing and records nothing
    const again = openDb(file)
    expect(rawSecretColumns(file)).toEqual(sealed)
    expect(listActivity(again, { type: 'secrets.encrypted' })).toHaveLength(1)
    again.$client.close()
  })

  it('a wrong key or a missing one is a clear error, and the secrets stay stored', async () => {
    const { db, file } = freshDb()
    await storeEverySecret(db)
    db.$client.close()
    const sealed = rawSecretColumns(file)
    const keyId = sealed[0].split(':')[2]

    process.env.TOOLGATE_SECRET_KEY = 'ab'.repeat(32)
    const wrong = openDb(file)
    expect(() => managedServers(wrong)).toThrow(`the secrets in ${file} were encrypted with key ${keyId}, but TOOLGATE_SECRET_KEY holds key`)
    expect(() => oauthOf(wrong, 'wiki')).toThrow('use the key they were stored with. They stay stored, unread')
    wrong.$client.close()

    process.env.TOOLGATE_SECRET_KEY = 'not a key'
    expect(() => managedServers(openDb(file))).toThrow('TOOLGATE_SECRET_KEY must hold a 32-byte key as 64 hex digits or base64 (make one with: openssl rand -hex 32)')

    delete process.env.TOOLGATE_SECRET_KEY
    renameSync(`${file}.key`, `${file}.key.moved`)
    const missing = openDb(file)
    expect(() => managedServers(missing)).toThrow(`the secrets in ${file} are encrypted (key ${keyId}), but there is no key: set TOOLGATE_SECRET_KEY or restore ${file}.key`)
    expect(existsSync(`${file}.key`)).toBe(false) // no new key is made over them
    missing.$client.close()
    expect(rawSecretColumns(file)).toEqual(sealed)

    // the key, given in the environment, reads them
    process.env.TOOLGATE_SECRET_KEY = readFileSync(`${file}.key.moved`, 'utf8')
    expect(managedServers(openDb(file)).find((s) => s.name === 'files')?.secrets).toEqual({ TOKEN: PLAIN[1] })
  })

  it('toolgate serve refuses to start on a wrong key, saying so', async () => {
    const { db, file } = freshDb()
    await storeEverySecret(db)
    db.$client.close()
    const started = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: 'tg_op_at_rest_test_key_000000000', TOOLGATE_SECRET_KEY: 'cd'.repeat(32) }).catch((e: Error) => e)
    if (!(started instanceof Error)) await started.stop()
    expect(String(started)).toContain(`the secrets in ${file} were encrypted with key`)
  })
})

describe('database file modes', () => {
  it('a running toolgate\'s folder is 0700 and its database, WAL, shared memory and key files 0600', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'toolgate-modes-'))
    chmodSync(base, 0o755)
    const file = path.join(base, 'state', 'toolgate.db') // a folder toolgate makes
    const server = await startServer({ TOOLGATE_DB: file, TOOLGATE_API_KEY: 'tg_op_modes_test_key_00000000000', TOOLGATE_RUNTIME: 'on' })
    try {
      const added = await runCli(['upstream', 'add', 'wiki', '--url', 'https://wiki.example/mcp', '--header', 'Authorization: Bearer x', '--db', file])
      expect(added.code, added.stderr).toBe(0)
      expect(mode(path.dirname(file))).toBe(0o700)
      for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}.key`]) expect([f, mode(f)]).toEqual([f, 0o600])
    } finally {
      await server.stop()
    }
  })

  it('files and the default data/ folder left wider by an earlier version are narrowed when opened', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'toolgate-root-'))
    mkdirSync(path.join(root, 'db'))
    symlinkSync(path.resolve('db', 'migrations'), path.join(root, 'db', 'migrations'))
    mkdirSync(path.join(root, 'data'), { mode: 0o755 })
    const file = path.join(root, 'data', 'toolgate.db')
    const before = process.env.TOOLGATE_ROOT
    process.env.TOOLGATE_ROOT = root
    try {
      openDb(file).$client.close()
      chmodSync(path.join(root, 'data'), 0o755)
      chmodSync(file, 0o644)
      const db = openDb(file)
      expect(mode(path.join(root, 'data'))).toBe(0o700)
      expect(mode(file)).toBe(0o600)
      db.$client.close()
    } finally {
      if (before === undefined) delete process.env.TOOLGATE_ROOT
      else process.env.TOOLGATE_ROOT = before
    }
    // a folder of the operator's own choosing is left as it is
    const own = tempDbFile()
    chmodSync(path.dirname(own), 0o750)
    openDb(own).$client.close()
    expect(mode(path.dirname(own))).toBe(0o750)
    expect(mode(own)).toBe(0o600)
  })
})
