// Which process holds the client side of a TCP connection to a local server (Linux /proc): the
// attached mode of bench/views.mjs counts the backends' requests by reading process, to prove that
// the window attached to a daemon reads nothing of the fleet (only the daemon does).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const hexPort = (addr) => Number.parseInt(addr.slice(addr.lastIndexOf(':') + 1), 16);

/** The socket inode of the connection whose client port is `clientPort` and server port `serverPort`, or null. */
export function socketInode(clientPort, serverPort) {
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      if (hexPort(f[1]) === clientPort && hexPort(f[2]) === serverPort && f[9] !== '0') return f[9];
    }
  }
  return null;
}

function holds(pid, inode) {
  const want = `socket:[${inode}]`;
  let fds;
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === want) return true;
    } catch {
      /* closed meanwhile */
    }
  }
  return false;
}

function commandOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 160);
  } catch {
    return '?';
  }
}

/**
 * The process holding the client side of a connection: `expected` pids are tried first, then every
 * process this user can see. { pid, command } or { pid: null, command: why }.
 */
export function connectionOwner(clientPort, serverPort, expected = []) {
  const inode = socketInode(clientPort, serverPort);
  if (inode === null) return { pid: null, command: `no socket for client port ${clientPort} (closed already)` };
  for (const pid of expected) if (holds(pid, inode)) return { pid, command: commandOf(pid) };
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || expected.includes(Number(name))) continue;
    if (holds(name, inode)) return { pid: Number(name), command: commandOf(name) };
  }
  return { pid: null, command: `socket ${inode} held by no process visible to this user` };
}
