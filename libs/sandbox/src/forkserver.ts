// The interpreter's fork server (interpreter.py --server, which describes the protocol): one long-lived python per
// interpreter path and Node process, started on the first fork and again after it died, under `unshare -rn` where that
// works, so that every child shares its empty network namespace. Each interpreter process is a forked child of it:
// a fork (~2 ms) instead of a python start (~30 ms plus unshare's).
//
// Channels: requests go to the server's stdin and it answers on its stdout (the pid of each child, and each child's
// exit once it has reaped it and killed its process group). Each child connects to a Unix socket this process
// listens on (a path in the server's temp dir: a path socket works across network namespaces) and first sends the
// token of its request; a connection with any other first line is dropped. Every process group (the server's, each
// child's) and temp dir is killed / removed when this process exits (child.ts); should this process die without
// that, the server sees its stdin end, kills its children and removes their temp dirs and its own. The handles are
// unref'd: a server and idle children never keep this process alive, a fork or a kill in progress does.
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import { once } from 'events';
import * as net from 'net';
import * as path from 'path';
import { createInterface, type Interface } from 'readline';
import { adoptGroup, makeTempDir, minimalEnv, releaseGroup, removeTempDir, STDERR_TAIL_CHARS } from './child';

/** The interpreter worker: one interpreter (spawn), or the fork server (--server). */
export const INTERPRETER_PY = path.join(__dirname, 'interpreter.py');

/** Whether `unshare -rn` works here (an empty network namespace without privileges); checked once. */
let netns: boolean | null = null;
export function networkIsolated(): boolean {
  if (netns === null) netns = spawnSync('unshare', ['-rn', 'true'], { stdio: 'ignore' }).status === 0;
  return netns;
}

/** `python args`, under `unshare -rn` where that works. */
export function isolatedCommand(python: string, args: string[]): [string, string[]] {
  return networkIsolated() ? ['unshare', ['-rn', python, ...args]] : [python, args];
}

/** What a fresh interpreter process gets: its directory (cwd, and HOME/TMPDIR in env), environment and limits. */
export interface ForkRequest {
  dir: string;
  env: NodeJS.ProcessEnv;
  memoryBytes: number;
  outputChars: number;
  /** Answer one request, then exit (stateless). */
  once: boolean;
}

/** A forked interpreter process. */
export interface ForkedChild {
  pid: number;
  /** Its answer lines; null when it died before connecting. */
  lines: Interface | null;
  send(line: string): void;
  /** Resolves once it has exited and was reaped, its process group killed (or its server is gone and cannot tell). */
  gone: Promise<void>;
  /** Kill its process group; resolves once it is gone. */
  kill(): Promise<void>;
}

/** The fork server could not be started: forking does not work with this interpreter or system. */
export class ForkServerError extends Error {
  override readonly name = 'ForkServerError';
}

/** The server died while a fork was under way: a new one is started by the next fork. */
class ServerGoneError extends Error {}

/** Lines of the server's stdout. */
type ServerLine = { ready: true } | { token: string; pid: number } | { exit: number };

/** How long a forked child may take to connect before its fork counts as failed (it is killed). */
const CONNECT_TIMEOUT_MS = 10_000;

/** A forked child the server has named. */
interface Child {
  pid: number;
  exited: boolean;
  /** Resolves once it has exited (or the server died: it was killed then). */
  gone: Promise<void>;
  markGone: () => void;
}

interface PendingFork {
  child?: Child;
  lines?: Interface;
  socket?: net.Socket;
  resolve: (child: ForkedChild) => void;
  reject: (err: Error) => void;
}

export class ForkServer {
  /** Forks under way by token; the children the server has forked and not yet reported gone, by pid. */
  private readonly forks = new Map<string, PendingFork>();
  private readonly children = new Map<number, Child>();
  /** Forks and kills in progress: while any, the handles keep this process alive. */
  private busy = 0;
  private dead = false;
  private stderrTail = '';
  private onReady: () => void = () => undefined;
  private onStartFailure: (err: Error) => void = () => undefined;

  private constructor(
    /** Holds the socket; removed by close(). */
    readonly dir: string,
    private readonly listener: net.Server,
    private readonly server: ChildProcess,
  ) {}

  get pid(): number | undefined {
    return this.server.pid;
  }
  get alive(): boolean {
    return !this.dead;
  }

  /** Start a server and wait until it takes requests; throws ForkServerError when it does not. */
  static async start(python: string): Promise<ForkServer> {
    const dir = await makeTempDir('rlhf-forkserver-');
    const socketPath = path.join(dir, 'sock');
    const listener = net.createServer();
    try {
      listener.listen(socketPath);
      await once(listener, 'listening');
    } catch (err) {
      listener.close();
      await removeTempDir(dir);
      throw new ForkServerError(`fork server: cannot listen on ${socketPath}: ${(err as Error).message}`);
    }
    const [cmd, args] = isolatedCommand(python, ['-I', '-u', INTERPRETER_PY, '--server', socketPath]);
    const server = spawn(cmd, args, { cwd: dir, env: minimalEnv(python, dir), detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const started = new ForkServer(dir, listener, server);
    if (server.pid) adoptGroup(server.pid);
    const ready = new Promise<void>((resolve, reject) => {
      started.onReady = resolve;
      started.onStartFailure = reject;
    });
    started.wire();
    started.hold();
    try {
      await ready;
    } catch (err) {
      await removeTempDir(dir);
      throw err;
    } finally {
      started.release();
    }
    return started;
  }

  private wire(): void {
    const { server, listener } = this;
    server.stdin!.on('error', () => undefined); // EPIPE after it died
    server.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    createInterface({ input: server.stdout! }).on('line', (line) => this.take(line));
    server.on('error', (err) => this.died(`could not start: ${err.message}`));
    server.on('exit', (code, signal) => this.died(`exited (${signal ?? `code ${code}`})`));
    listener.on('connection', (socket) => this.greet(socket));
    for (const h of [server.stdin, server.stderr] as unknown as { unref(): void }[]) h.unref();
    this.keepAlive(false);
  }

  /** The server is gone: its children are killed (nobody would reap them), forks under way fail. */
  private died(why: string): void {
    if (this.dead) return;
    this.dead = true;
    if (this.server.pid) releaseGroup(this.server.pid, true);
    const last = this.stderrTail.trim().split('\n').pop();
    this.onStartFailure(new ForkServerError(`fork server: ${why} before it took requests${last ? `: ${last}` : ''}`));
    for (const child of this.children.values()) {
      releaseGroup(child.pid, true);
      child.markGone();
    }
    this.children.clear();
    for (const fork of this.forks.values()) fork.reject(new ServerGoneError());
    this.forks.clear();
    this.listener.close();
    void removeTempDir(this.dir);
  }

  /** A child's connection: its first line, within CONNECT_TIMEOUT_MS, names its fork; anything else is dropped. */
  private greet(socket: net.Socket): void {
    socket.unref();
    socket.on('error', () => undefined);
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy());
    const lines = createInterface({ input: socket });
    lines.once('line', (hello) => {
      socket.setTimeout(0);
      let token: unknown;
      try {
        token = (JSON.parse(hello) as { token?: unknown }).token;
      } catch {
        token = undefined;
      }
      const fork = typeof token === 'string' ? this.forks.get(token) : undefined;
      if (!fork || fork.socket) {
        socket.destroy();
        return;
      }
      fork.socket = socket;
      fork.lines = lines;
      this.settle(token as string);
    });
  }

  private take(line: string): void {
    let msg: ServerLine;
    try {
      msg = JSON.parse(line) as ServerLine;
    } catch {
      return;
    }
    if ('ready' in msg) {
      this.onReady();
    } else if ('token' in msg) {
      const fork = this.forks.get(msg.token);
      if (!fork) return;
      const child = this.named(msg.pid);
      fork.child = child;
      // A child that dies before connecting: its fork gets it without a channel, as a process that died at once.
      void child.gone.then(() => {
        if (this.forks.get(msg.token) !== fork || fork.socket) return;
        this.forks.delete(msg.token);
        fork.resolve(this.forkedChild(child, null, null));
      });
      this.settle(msg.token);
    } else if ('exit' in msg) {
      const child = this.children.get(msg.exit);
      this.children.delete(msg.exit);
      releaseGroup(msg.exit, false); // the server has reaped it and killed its group
      child?.markGone();
    }
  }

  private named(pid: number): Child {
    let markGone = () => undefined as void;
    const gone = new Promise<void>((resolve) => (markGone = resolve));
    const child: Child = { pid, exited: false, gone, markGone: () => ((child.exited = true), markGone()) };
    this.children.set(pid, child);
    adoptGroup(pid);
    return child;
  }

  /** Hands a fork its child once the server has named its pid and the child has connected. */
  private settle(token: string): void {
    const fork = this.forks.get(token)!;
    if (!fork.child || !fork.socket) return;
    this.forks.delete(token);
    fork.resolve(this.forkedChild(fork.child, fork.socket, fork.lines!));
  }

  private forkedChild(child: Child, socket: net.Socket | null, lines: Interface | null): ForkedChild {
    return {
      pid: child.pid,
      lines,
      gone: child.gone,
      send: (line) => void socket?.write(line),
      kill: async () => {
        socket?.destroy();
        if (child.exited) return;
        this.hold();
        try {
          for (const pid of [-child.pid, child.pid]) {
            try {
              process.kill(pid, 'SIGKILL'); // its group, and itself should it not have reached setsid() yet
            } catch {
              // already gone
            }
          }
          await child.gone;
        } finally {
          this.release();
        }
      },
    };
  }

  /** Fork an interpreter process for `request`; throws ServerGoneError when the server died meanwhile. */
  async fork(request: ForkRequest): Promise<ForkedChild> {
    if (this.dead) throw new ServerGoneError();
    const token = randomBytes(16).toString('hex');
    this.hold();
    const forked = new Promise<ForkedChild>((resolve, reject) => this.forks.set(token, { resolve, reject }));
    const timer = setTimeout(() => {
      // No connection in time: a child is killed (its fork then gets it without a channel); no pid: the server hangs.
      const fork = this.forks.get(token);
      if (!fork) return;
      if (fork.child) return void this.forkedChild(fork.child, null, null).kill();
      this.forks.delete(token);
      fork.reject(new ServerGoneError());
    }, CONNECT_TIMEOUT_MS);
    const line = JSON.stringify({
      token,
      dir: request.dir,
      env: request.env,
      memory_bytes: request.memoryBytes,
      output_cap: request.outputChars,
      once: request.once,
    });
    this.server.stdin!.write(line + '\n');
    try {
      return await forked;
    } finally {
      clearTimeout(timer);
      this.release();
    }
  }

  private hold(): void {
    if (this.busy++ === 0) this.keepAlive(true);
  }
  private release(): void {
    if (--this.busy === 0) this.keepAlive(false);
  }
  /** ref / unref what delivers the server's answers and the children's connections. */
  private keepAlive(on: boolean): void {
    for (const h of [this.server, this.server.stdout, this.listener] as unknown as { ref(): void; unref(): void }[]) {
      if (on) h.ref();
      else h.unref();
    }
  }

  /** Stop the server and every child it forked; its socket and temp dir are removed. */
  async close(): Promise<void> {
    if (!this.dead) {
      this.hold();
      const exited = once(this.server, 'exit');
      this.server.stdin!.end(); // the server kills its children's groups and exits
      await exited;
      this.release();
    }
    await removeTempDir(this.dir);
  }
}

/** The live server per interpreter path, and the start of one under way. */
const servers = new Map<string, Promise<ForkServer>>();

/** The running fork server for `python`, started if there is none (or the last one died). */
export async function forkServer(python: string): Promise<ForkServer> {
  const current = servers.get(python);
  if (current) {
    const server = await current.catch(() => null);
    if (server?.alive) return server;
    if (servers.get(python) !== current) return forkServer(python);
  }
  const started = ForkServer.start(python);
  servers.set(python, started);
  started.catch(() => servers.get(python) === started && servers.delete(python));
  return started;
}

/** Fork an interpreter process from `python`'s server; a server that dies during the fork is restarted once. */
export async function forkInterpreter(python: string, request: ForkRequest): Promise<ForkedChild> {
  for (let attempt = 0; ; attempt++) {
    const server = await forkServer(python);
    try {
      return await server.fork(request);
    } catch (err) {
      if (!(err instanceof ServerGoneError) || attempt > 0) throw err;
    }
  }
}

/** Stop every fork server of this process and all their children (e.g. at the end of a run or a test file). */
export async function closeForkServers(): Promise<void> {
  const all = [...servers.values()];
  servers.clear();
  await Promise.all(all.map(async (s) => (await s.catch(() => null))?.close()));
}
