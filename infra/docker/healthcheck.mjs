// Container health check: exit 0 when GET /health/ready answers 200, 1 otherwise.
// Plain Node (no curl in the image); reads the same PORT the service listens on.
const port = process.env.PORT || '8080'
const timeout = AbortSignal.timeout(Number(process.env.HEALTHCHECK_TIMEOUT_MS || 2500))

try {
  const response = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: timeout })
  process.exit(response.status === 200 ? 0 : 1)
} catch {
  process.exit(1)
}
