# Sandbox harness: runs untrusted solutions and their tests, reporting each step as a line on file descriptor 3.
# Two ways in, one way to run a solution (run_job):
#
#   python3 -I -c <this file>          one run in this process (run.ts's runPython)
#   python3 -I -c <this file> batch    the batch driver (run.ts's runPythonBatch): many runs, one after another,
#                                      each in a forked child that calls run_job; the driver runs no user code
#
# Protocol of a run. The job is one JSON object {nonce, code, setup, tests, memory_bytes, fsize_bytes, cpu_seconds}
# (a single run reads it from stdin). Every report line is `<nonce> <json>\n` on fd 3, where json is one of
#   {"e": "syntax", "ok": bool, "error"?: str}       the solution compiled (or why not)
#   {"e": "code",   "ok": false, "error": str, "memory": bool}   the solution raised at top level
#   {"e": "setup",  "ok": false, "error": str, "memory": bool}   the test setup code raised
#   {"e": "test",   "i": int, "ok": bool, "error"?: str, "memory"?: bool}
#   {"e": "done"}                                      every test ran; the process exits 0
# The parent only trusts lines that start with the nonce, which the solution never sees: printing a
# lookalike line on stdout/stderr/fd 3 does not count. (Code that digs the nonce out of this
# interpreter's memory could still forge one; the sandbox limits damage, it is not a proof system.)
#
# Protocol of the batch driver. stdin carries frames `<byte length>\n<json>`: first {key, grace_ms}, then one job per
# frame (a run's job plus timeout_ms and output_cap). Frames are read one at a time, so a child holds no later job.
# The driver writes lines `<key> <json>\n` on its stdout, a channel its children do not have:
#   {"e": "start",  "i": int, "pid": int}    job i runs in process group pid (so the parent can kill it should the
#                                            driver die); the child starts the job only once this line is written
#   {"e": "result", "i": int, "exit_code": int|null, "signal": str|null, "timed_out": bool, "output_exceeded": bool,
#    "duration_ms": int, "report": str, "stderr": str}   what the child wrote on fd 3, the tail of its stderr
# Each child: its own session (setsid) and a fresh directory under the driver's (cwd, HOME, TMPDIR; removed after
# the job), stdin from /dev/null, its own pipes for stdout, stderr and fd 3 (their bytes together capped at
# output_cap: past it the child's group is killed), the rlimits set in the child only, killed with its whole group
# at timeout_ms (wall clock, measured by the driver) and reaped with its group when it exits. The key is wiped in
# the child, so it cannot sign a result line.
import json
import os
import resource
import select
import signal
import sys
import time
import traceback
import warnings


def run_job(payload):
    """Run one solution and its tests in this process, reporting on fd 3. Never returns: ends with os._exit."""
    # Later reads of stdin (input()) get EOF instead of blocking until the timeout.
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)

    nonce = payload.pop("nonce").encode("ascii")
    # Keep our own references: the solution may monkeypatch os / json, not the functions we hold.
    write, dumps, set_inheritable, exit_now = os.write, json.dumps, os.set_inheritable, os._exit
    format_exc_only = traceback.format_exception_only
    set_inheritable(3, False)  # programs the solution starts do not get the report channel
    # Address space freed on MemoryError so that reporting still has room under RLIMIT_AS. bytes(), unlike
    # bytearray(), gets it from calloc without touching its pages: ~1.5 ms less per run.
    reserve = [bytes(4 << 20)]

    def report(event):
        try:
            write(3, nonce + b" " + dumps(event).encode("utf-8") + b"\n")
        except BaseException:
            pass

    def describe(err):
        if isinstance(err, MemoryError):
            reserve.clear()
        try:
            text = "".join(format_exc_only(type(err), err)).strip().splitlines()[-1]
        except BaseException:
            text = type(err).__name__
        return text[:300]

    def note(text):  # human-readable line for the stderr tail
        try:
            write(2, ("[sandbox] " + text + "\n").encode("utf-8", "replace"))
        except BaseException:
            pass

    # Limits apply to this process and everything it starts (rlimits are inherited). Soft and hard
    # limits are both set so the solution cannot raise them back.
    def limit(kind, soft, hard):
        current_hard = resource.getrlimit(kind)[1]
        if current_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, current_hard), min(hard, current_hard)
        resource.setrlimit(kind, (soft, hard))

    if payload["memory_bytes"]:
        limit(resource.RLIMIT_AS, payload["memory_bytes"], payload["memory_bytes"])
    limit(resource.RLIMIT_FSIZE, payload["fsize_bytes"], payload["fsize_bytes"])
    limit(resource.RLIMIT_CORE, 0, 0)
    # Backstop for CPU loops should the parent die before its wall-clock timer fires.
    limit(resource.RLIMIT_CPU, payload["cpu_seconds"], payload["cpu_seconds"] + 1)

    code, setup, tests = payload["code"], payload["setup"], payload["tests"]
    del payload

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is not our business
        try:
            compiled = compile(code, "<solution>", "exec", dont_inherit=True)
        except BaseException as err:  # SyntaxError, ValueError (null bytes), MemoryError, RecursionError
            error = describe(err)
            report({"e": "syntax", "ok": False, "error": error})
            note("syntax: " + error)
            exit_now(1)
    report({"e": "syntax", "ok": True})

    # Not "__main__": a solution's `if __name__ == "__main__":` driver (often reading input()) is skipped.
    scope = {"__name__": "solution", "__builtins__": __builtins__}
    for stage, source in (("code", compiled), ("setup", setup)):
        if stage == "setup" and not source.strip():
            continue
        try:
            exec(source, scope)
        except BaseException as err:  # SystemExit too: exiting before the tests must not look like success
            error = describe(err)
            report({"e": stage, "ok": False, "error": error, "memory": isinstance(err, MemoryError)})
            note(stage + " raised " + error)
            exit_now(1)

    for i, test in enumerate(tests):
        try:
            exec(compile(test, "<test %d>" % i, "exec", dont_inherit=True), scope)
            report({"e": "test", "i": i, "ok": True})
        except BaseException as err:
            error = describe(err)
            report({"e": "test", "i": i, "ok": False, "error": error, "memory": isinstance(err, MemoryError)})
            note("test %d failed: %s" % (i, error))
    report({"e": "done"})
    exit_now(0)  # skip atexit hooks and wait for no threads the solution left running


def single():
    run_job(json.loads(sys.stdin.buffer.read().decode("utf-8")))


# ---- the batch driver ----

STDERR_KEEP = 8000  # bytes of a child's stderr kept (the parent keeps the last 2000 characters)
READ_CHUNK = 65536


def read_exactly(n):
    """n bytes of stdin, or fewer at end of input. Unbuffered: nothing beyond the frame is read."""
    parts = []
    while n > 0:
        chunk = os.read(0, n)
        if not chunk:
            break
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def read_frame():
    """The next frame's JSON, or None at the end of input."""
    header = b""
    while not header.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            if header:
                raise ValueError("batch input ends inside a frame header")
            return None
        header += byte
    size = int(header)
    data = read_exactly(size)
    if len(data) != size:
        raise ValueError("batch input ends inside a frame")
    return json.loads(data.decode("utf-8"))


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def set_dumpable(flag):
    """prctl(PR_SET_DUMPABLE): a process that is not dumpable has its /proc/<pid>/fd and /proc/<pid>/mem closed to
    other processes of the user, so a child cannot write on the driver's stdout or read its key. Best effort."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 1 if flag else 0, 0, 0, 0)
    except Exception:
        pass


def make_job_dir(home):
    """A fresh, empty directory under the driver's; mkdir fails rather than reuse one a job planted."""
    while True:
        path = os.path.join(home, "job-" + os.urandom(8).hex())
        try:
            os.mkdir(path, 0o700)
            return path
        except FileExistsError:
            continue


def remove_tree(path):
    import shutil  # imported by batch() already: every child sees the same modules

    # What cannot be removed (a directory the job made read-only) goes when the parent removes the driver's
    # directory, making directories writable again first, at the end of the batch.
    shutil.rmtree(path, ignore_errors=True)


def kill_group(pid, reaped):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass  # ESRCH: the group is gone
    if not reaped:
        try:
            os.kill(pid, signal.SIGKILL)  # in case it has not reached setsid() yet
        except OSError:
            pass


def child(job, key, job_dir, go_r, out_w, err_w, rep_w):
    """In the forked child: isolate, wait for the driver's go, then run the job. Never returns."""
    exit_now = os._exit  # should the job escape run_job, it never gets back into the driver's loop
    try:
        key[:] = bytes(len(key))  # not ours to know: wiped before any user code
        os.setsid()
        if os.read(go_r, 1) != b"x":
            exit_now(1)  # the driver died before announcing us
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.dup2(rep_w, 3)
        os.closerange(4, 1 << 16)  # the driver's other descriptors (fd 0 becomes /dev/null in run_job)
        os.chdir(job_dir)
        os.environ["HOME"] = job_dir
        os.environ["TMPDIR"] = job_dir
        set_dumpable(True)  # as a fresh process: its own /proc/self files readable
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as a fresh process: KeyboardInterrupt
        run_job(job)
    finally:
        exit_now(1)


def run_forked(job, key, home):
    """Start one job in a forked child, which waits for the go pipe; what supervise() needs."""
    job_dir = make_job_dir(home)
    pipes = [os.pipe() for _ in range(4)]  # stdout, stderr, report (fd 3), go
    (out_r, out_w), (err_r, err_w), (rep_r, rep_w), (go_r, go_w) = pipes
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        child(job, key, job_dir, go_r, out_w, err_w, rep_w)
    for fd in (out_w, err_w, rep_w, go_r):
        os.close(fd)
    return {"pid": pid, "dir": job_dir, "fds": (out_r, err_r, rep_r), "go": go_w, "started": started}


def supervise(run, job, grace):
    """Wait for the child, enforcing its wall-clock timeout and output cap; reap it and its group."""
    pid = run["pid"]
    out_r, err_r, rep_r = run["fds"]
    deadline = run["started"] + job["timeout_ms"] / 1000
    cap = job["output_cap"]
    written = 0
    timed_out = exceeded = False
    report, stderr = [], b""
    status = None
    close_by = None  # once the child has exited: when to stop waiting for pipes an escaped process holds
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None  # no pidfd (old kernel): check with waitpid every few milliseconds
    poller = select.poll()
    streams = {out_r, err_r, rep_r}
    for fd in streams:
        poller.register(fd, select.POLLIN)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)

    def reap(block):
        nonlocal status, close_by
        done, st = os.waitpid(pid, 0 if block else os.WNOHANG)
        if done == pid:
            status = st
            kill_group(pid, reaped=True)  # whatever the program left running (background processes, forks)
            close_by = time.monotonic() + grace

    while streams or status is None:
        now = time.monotonic()
        if status is None:
            if not timed_out and now >= deadline:
                timed_out = True
                kill_group(pid, reaped=False)
            wait = deadline - now if not timed_out else 0.05
            if pidfd is None:
                wait = min(wait, 0.005)
        else:
            if now >= close_by:
                break
            wait = close_by - now
        for fd, _ in poller.poll(max(0, int(wait * 1000) + 1)):
            if fd == pidfd:
                reap(block=True)
                poller.unregister(pidfd)
                continue
            chunk = os.read(fd, READ_CHUNK)
            if not chunk:
                poller.unregister(fd)
                streams.discard(fd)
                continue
            # Every byte counts; past the cap the group is killed and further data dropped.
            written += len(chunk)
            if written > cap and not exceeded:
                exceeded = True
                kill_group(pid, reaped=status is not None)
            if exceeded:
                continue
            if fd == err_r:
                stderr = (stderr + chunk)[-STDERR_KEEP:]
            elif fd == rep_r:
                report.append(chunk)
        if status is None and pidfd is None:
            reap(block=False)
    duration_ms = round((time.monotonic() - run["started"]) * 1000)
    for fd in (out_r, err_r, rep_r) + ((pidfd,) if pidfd is not None else ()):
        os.close(fd)
    remove_tree(run["dir"])
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = "SIG%d" % number
        exit_code, sig = None, name
    else:
        exit_code, sig = os.WEXITSTATUS(status), None
    return {
        "exit_code": exit_code,
        "signal": sig,
        "timed_out": timed_out,
        "output_exceeded": exceeded,
        "duration_ms": duration_ms,
        "report": b"".join(report).decode("utf-8", "replace"),
        "stderr": stderr.decode("utf-8", "replace"),
    }


def batch():
    import shutil  # noqa: F401 (for remove_tree), before the first child

    header = read_frame()
    key = bytearray(header.pop("key").encode("ascii"))  # only in here, which the child wipes
    grace = header["grace_ms"] / 1000
    home = os.getcwd()
    set_dumpable(False)
    # Die of SIGINT rather than raise KeyboardInterrupt, so that a job interrupting its parent counts as killing it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)

    def emit(event):
        write_all(1, bytes(key) + b" " + json.dumps(event).encode("ascii") + b"\n")

    i = 0
    while True:
        job = read_frame()
        if job is None:
            break
        run = run_forked(job, key, home)
        emit({"e": "start", "i": i, "pid": run["pid"]})
        try:
            os.write(run["go"], b"x")
        except OSError:
            pass  # the child is already dead: supervise() reports how
        os.close(run["go"])
        emit({"e": "result", "i": i, **supervise(run, job, grace)})
        del job, run
        i += 1
    os._exit(0)


if sys.argv[1:] == ["batch"]:
    batch()
else:
    single()
