/** One JSON log line per message in pino's shape, for what happens before the app (and its logger) exists. */
export const bootLogger = {
  info(objOrMsg: object | string, msg?: string) {
    const fields = typeof objOrMsg === 'string' ? { msg: objOrMsg } : { ...objOrMsg, msg }
    process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), name: 'claims', ...fields })}\n`)
  },
  warn(msg: string) {
    process.stdout.write(`${JSON.stringify({ level: 40, time: Date.now(), name: 'claims', msg })}\n`)
  },
}
