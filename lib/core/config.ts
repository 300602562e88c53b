/**
 * The environment, in one place: every variable toolgate reads (docs/configuration.md says what
 * each does) and the accessors the rest of the code reads them through. The layering test allows
 * `process.env` in this file only (bin/ and the build's own config files aside), so a new
 * variable is added here, where `toolgate doctor` learns it too and stops calling it a typo.
 * Parsing stays with what each one configures (oidcConfig, readTelemetryConfig, boundaryFromEnv,
 * supervisorOptions): those take an environment, which tests give them directly.
 */
export const VARIABLES = [
  // where the state lives, and the keys to it
  'TOOLGATE_DB', 'TOOLGATE_DATABASE_URL', 'TOOLGATE_SECRET_KEY', 'TOOLGATE_API_KEY', 'TOOLGATE_ROOT',
  // how toolgate is reached
  'TOOLGATE_URL', 'TOOLGATE_ALLOWED_HOSTS', 'TOOLGATE_ALLOWED_ORIGINS', 'TOOLGATE_TRUST_PROXY', 'PORT', 'HOST',
  // single sign-on
  'TOOLGATE_OIDC_ISSUER', 'TOOLGATE_OIDC_CLIENT_ID', 'TOOLGATE_OIDC_CLIENT_SECRET', 'TOOLGATE_OIDC_NAME', 'TOOLGATE_OIDC_SCOPES',
  'TOOLGATE_OIDC_ALLOWED_DOMAINS', 'TOOLGATE_OIDC_ROLE_CLAIM', 'TOOLGATE_OIDC_ROLES', 'TOOLGATE_OIDC_DEFAULT_ROLE',
  // the upstream runtime
  'TOOLGATE_RUNTIME', 'TOOLGATE_PING_INTERVAL_MS', 'TOOLGATE_HTTP_PING_INTERVAL_MS', 'TOOLGATE_RELIST_INTERVAL_MS',
  'TOOLGATE_CONNECT_TIMEOUT_MS', 'TOOLGATE_BACKOFF_BASE_MS', 'TOOLGATE_BACKOFF_MAX_MS', 'TOOLGATE_RUNTIME_LEASE_MS', 'TOOLGATE_SESSION_IDLE_MS',
  // telemetry and logs (the OpenTelemetry SDK reads the other OTEL_* variables itself)
  'TOOLGATE_LOG_FORMAT', 'TOOLGATE_METRICS_LOOPBACK', 'TOOLGATE_OTEL_CAPTURE_ARGUMENTS', 'OTEL_SDK_DISABLED', 'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', 'OTEL_TRACES_EXPORTER', 'OTEL_METRICS_EXPORTER',
  'OTEL_METRIC_EXPORT_INTERVAL', 'OTEL_METRIC_EXPORT_TIMEOUT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL',
  // the CLI
  'TOOLGATE_AGENT_TOKEN', 'NO_COLOR', 'FORCE_COLOR', 'TERM', 'PATH',
  // building and testing toolgate itself (scripts/test.mjs, next.config.mjs, tests/helpers: set on the processes tests start)
  'NEXT_DIST_DIR', 'NODE_ENV', 'TOOLGATE_SKIP_BUILD', 'TOOLGATE_SKIP_TYPECHECK', 'TOOLGATE_TEST_RUN', 'TOOLGATE_TEST_FILE',
  'TOOLGATE_TEST_DATABASE_URL', 'TOOLGATE_TRACE_LOADS',
] as const
export type Variable = (typeof VARIABLES)[number]

/** An environment as the parsers read it: process.env, or a test's own. */
export type Environment = Readonly<Record<string, string | undefined>>

/** The process's environment, for a parser that reads several variables. */
export const environment = (): NodeJS.ProcessEnv => process.env

/** One variable's value (unset: undefined). */
export const envVar = (name: Variable): string | undefined => process.env[name]

/** Whether this is `serve --dev` (Next.js writes NODE_ENV into the bundles it builds: spelt out, so it can). */
export const isDevelopment = (): boolean => process.env.NODE_ENV === 'development'

/** Set a variable for the rest of this process and the processes it starts (`serve --db`: the server opens that file). */
export function setEnvVar(name: Variable, value: string): void {
  ;(process.env as Record<string, string>)[name] = value
}

const known = new Set<string>(VARIABLES)

/** The TOOLGATE_* variables set that toolgate does not read: a misspelt name is otherwise silently ignored. */
export function unknownVariables(env: Environment = process.env): string[] {
  return Object.keys(env).filter((name) => name.startsWith('TOOLGATE_') && !known.has(name)).sort()
}
