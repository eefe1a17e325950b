# Sandbox harness: runs one untrusted solution and its tests in this process (started by run.ts as
# `python3 -I -c <this file>`), reporting each step as a line on file descriptor 3.
#
# Protocol. stdin carries one JSON object {nonce, code, setup, tests, memory_bytes, fsize_bytes, cpu_seconds}.
# Every report line is `<nonce> <json>\n` on fd 3, where json is one of
#   {"e": "syntax", "ok": bool, "error"?: str}       the solution compiled (or why not)
#   {"e": "code",   "ok": false, "error": str, "memory": bool}   the solution raised at top level
#   {"e": "setup",  "ok": false, "error": str, "memory": bool}   the test setup code raised
#   {"e": "test",   "i": int, "ok": bool, "error"?: str, "memory"?: bool}
#   {"e": "done"}                                      every test ran; the harness exits 0
# The parent only trusts lines that start with the nonce, which the solution never sees: printing a
# lookalike line on stdout/stderr/fd 3 does not count. (Code that digs the nonce out of this
# interpreter's memory could still forge one; the sandbox limits damage, it is not a proof system.)
import json
import os
import resource
import sys
import traceback
import warnings


def main():
    payload = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    # Later reads of stdin (input()) get EOF instead of blocking until the timeout.
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)

    nonce = payload.pop("nonce").encode("ascii")
    # Keep our own references: the solution may monkeypatch os / json, not the functions we hold.
    write, dumps, set_inheritable = os.write, json.dumps, os.set_inheritable
    format_exc_only = traceback.format_exception_only
    set_inheritable(3, False)  # programs the solution starts do not get the report channel
    reserve = [bytearray(4 << 20)]  # freed on MemoryError so that reporting still has room

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
            os._exit(1)
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
            os._exit(1)

    for i, test in enumerate(tests):
        try:
            exec(compile(test, "<test %d>" % i, "exec", dont_inherit=True), scope)
            report({"e": "test", "i": i, "ok": True})
        except BaseException as err:
            error = describe(err)
            report({"e": "test", "i": i, "ok": False, "error": error, "memory": isinstance(err, MemoryError)})
            note("test %d failed: %s" % (i, error))
    report({"e": "done"})
    os._exit(0)  # skip atexit hooks and wait for no threads the solution left running


main()
