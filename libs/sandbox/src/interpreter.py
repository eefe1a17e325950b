# The Python interpreter tool's worker (interpreter.ts). Two ways in, one way to run code (serve):
#
#   python3 -I -u interpreter.py --memory-bytes N --output-cap N [--once]   one interpreter in this process (spawn)
#   python3 -I -u interpreter.py --server SOCKET                            the fork server (fork)
#
# An interpreter reads requests as JSON lines {"code": "..."} and answers each with one JSON line {"output": "...",
# "truncated": bool}: in this process, requests on stdin and answers on fd 3; in a forked child, both on a Unix socket.
# The code runs in one namespace that lives as long as the process: with --once (or "once") it answers one request
# and exits (stateless), without it variables persist between calls (stateful). Like a notebook cell, the value of a
# last bare expression is shown. Limits: address space (RLIMIT_AS), file size (RLIMIT_FSIZE), at most output-cap
# characters of output per call.
#
# The fork server (forkserver.ts starts it) has this file's modules imported, so a child costs a fork instead of a
# python start. Its stdin carries requests, one JSON line each:
#   {"token": str, "dir": str, "env": {str: str}, "memory_bytes": int, "output_cap": int, "once": bool}
# and its stdout (a channel its children do not have) the answers, one JSON line each:
#   {"ready": true}                    once, when it takes requests
#   {"token": str, "pid": int}         a child was forked for that request; pid is its process group too
#   {"exit": int}                      that child has exited, was reaped and its process group killed
# Each child: its own session (setsid), stdin/stdout/stderr on /dev/null and no other descriptor of the server, cwd,
# HOME and TMPDIR in the request's fresh directory, exactly the request's environment, the rlimits, a fresh namespace;
# it connects to SOCKET and first sends {"token": ...} so that the parent knows which request it serves. When stdin
# ends (its parent is gone, or closes it) the server kills every child's process group, removes the children's
# directories and its own (SOCKET's), and exits.
import argparse
import ast
import io
import json
import os
import resource
import select
import shutil
import signal
import socket
import sys
import traceback

FILE_SIZE_LIMIT = 1 << 20


class CappedText(io.TextIOBase):
    """stdout/stderr of the code: keeps the first `cap` characters and counts the rest."""

    def __init__(self, cap):
        self.cap, self.parts, self.size, self.truncated = cap, [], 0, False

    def writable(self):
        return True

    def write(self, s):
        room = self.cap - self.size
        if len(s) > room:
            self.truncated = True
            s = s[: max(room, 0)]
        self.parts.append(s)
        self.size += len(s)
        return len(s)

    def text(self):
        return "".join(self.parts)


def run(code, namespace, cap):
    out = CappedText(cap)
    real = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = out
    try:
        tree = ast.parse(code, "<tool>", "exec")
        last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        if last is not None:
            tree.body.pop()
        exec(compile(tree, "<tool>", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<tool>", "eval"), namespace)
            if value is not None:
                print(repr(value))
    except SystemExit as e:
        print(f"SystemExit: {e.code}")
    except BaseException:
        kind, value, tb = sys.exc_info()
        if isinstance(value, SyntaxError):
            # Raised by the parser: the offending line and the message, no parser frames.
            print("".join(traceback.format_exception_only(kind, value)).rstrip())
        else:
            # The traceback without this file's frames: what the model's own code raised.
            print("".join(traceback.format_exception(kind, value, tb.tb_next if tb else None)).rstrip())
    finally:
        sys.stdout, sys.stderr = real
    return {"output": out.text(), "truncated": out.truncated}


def set_limits(memory_bytes):
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))


def serve(requests, answers, cap, once):
    """Answer requests until they end (or after one with `once`), all in one fresh namespace."""
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    for line in requests:
        try:
            code = json.loads(line)["code"]
        except (ValueError, KeyError, TypeError):
            answer = {"output": "interpreter: malformed request", "truncated": False}
        else:
            answer = run(code, namespace, cap)
        answers.write(json.dumps(answer) + "\n")
        answers.flush()
        if once:
            break


def set_dumpable(flag):
    """prctl(PR_SET_DUMPABLE): the server is not dumpable, so that a child (same user) cannot open its stdout through
    /proc/<pid>/fd and forge its answers; a child is, as a fresh process would be. Best effort."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 1 if flag else 0, 0, 0, 0)
    except Exception:
        pass


def child(request, socket_path):
    """In the forked child: become what a fresh interpreter process would be, then serve the socket. Never returns."""
    exit_now = os._exit  # should the code escape serve(), it never gets back into the server's loop
    try:
        os.setsid()  # its own session and process group: a kill of the group takes whatever it started
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # the server's stdin and stdout are its channel to the parent, not the child's
            os.dup2(null, fd)
        os.closerange(3, 1 << 16)  # the server's other descriptors: its wake-up pipe (and null, now 0-2)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        set_dumpable(True)
        os.chdir(request["dir"])
        os.environ.clear()
        os.environ.update(request["env"])
        set_limits(request["memory_bytes"])
        channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        channel.connect(socket_path)
        channel.sendall((json.dumps({"token": request["token"]}) + "\n").encode("utf-8"))
        request["token"] = None  # not the code's to know
        with channel.makefile("r", encoding="utf-8") as requests, channel.makefile("w", encoding="utf-8") as answers:
            serve(requests, answers, request["output_cap"], request["once"])
        exit_now(0)
    finally:
        exit_now(1)


def server(socket_path):
    set_dumpable(False)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # SIGCHLD wakes the loop through a pipe (the handler itself does nothing), so reaping happens in the loop.
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children = {}  # pid -> its directory

    def emit(answer):
        data = (json.dumps(answer) + "\n").encode("utf-8")
        while data:
            data = data[os.write(1, data):]

    def reap():
        while children:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            children.pop(pid, None)
            try:
                os.killpg(pid, signal.SIGKILL)  # whatever the child left running (background processes, forks)
            except OSError:
                pass  # ESRCH: the group is gone
            emit({"exit": pid})

    def fork(request):
        pid = os.fork()
        if pid == 0:
            child(request, socket_path)
        children[pid] = request["dir"]
        emit({"token": request["token"], "pid": pid})

    emit({"ready": True})
    pending = b""
    while True:
        try:
            ready, _, _ = select.select([0, wake_r], [], [])
        except InterruptedError:
            continue
        if wake_r in ready:
            os.read(wake_r, 4096)
            reap()
        if 0 in ready:
            data = os.read(0, 1 << 16)
            if not data:
                break
            *lines, pending = (pending + data).split(b"\n")
            for line in lines:
                fork(json.loads(line))
    for pid in children:  # the parent is gone: so is every child
        for kill in (os.killpg, os.kill):  # os.kill: in case it has not reached setsid() yet
            try:
                kill(pid, signal.SIGKILL)
            except OSError:
                pass
    for path in [*children.values(), os.path.dirname(socket_path)]:
        shutil.rmtree(path, ignore_errors=True)
    os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", metavar="SOCKET")
    parser.add_argument("--memory-bytes", type=int, default=0)
    parser.add_argument("--output-cap", type=int, default=4096)
    parser.add_argument("--once", action="store_true")
    args = parser.parse_args()
    if args.server:
        server(args.server)
    set_limits(args.memory_bytes)
    serve(sys.stdin, os.fdopen(3, "w", encoding="utf-8"), args.output_cap, args.once)


main()
