// Which process listens on a TCP port, so that a refusal can name it: read from /proc on Linux (the
// listening socket's inode, then the process holding it); null elsewhere or when it cannot be told.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

const LISTEN = '0A'

/** The inodes of the sockets listening on `port` (IPv4 and IPv6). */
function listeningInodes(port) {
  const inodes = new Set()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      const local = fields[1]
      if (!local || fields[3] !== LISTEN) continue
      if (Number.parseInt(local.split(':')[1], 16) === port) inodes.add(fields[9])
    }
  }
  return inodes
}

/** The pid of the process listening on `port`, or null. */
export function listenerOf(port) {
  const inodes = listeningInodes(port)
  if (inodes.size === 0) return null
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let fds
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      let target
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`)
      } catch {
        continue
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode && inodes.has(inode)) return Number(pid)
    }
  }
  return null
}

/** What a process runs, in a few words: `node src/server.ts in /path/to/services/claims`. */
export function describeProcess(pid) {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    const program = args[0]?.split('/').pop() ?? '?'
    return `${program} ${args.at(-1) ?? ''} in ${readlinkSync(`/proc/${pid}/cwd`)}`
  } catch {
    return null
  }
}
