# The Python interpreter tool's worker (interpreter.ts). Requests arrive on stdin as JSON lines {"code": "..."}; each
# answer goes to fd 3 as one JSON line {"output": "...", "truncated": bool}. The code runs in one namespace that lives
# as long as this process: with --once it answers one request and exits (stateless: a fresh process per call), without
# it variables persist between calls (stateful). Like a notebook cell, the value of a last bare expression is shown.
# Limits set here: address space (RLIMIT_AS), file size (RLIMIT_FSIZE), at most --output-cap characters of output.
import argparse
import ast
import io
import json
import os
import resource
import sys
import traceback

parser = argparse.ArgumentParser()
parser.add_argument("--memory-bytes", type=int, default=0)
parser.add_argument("--output-cap", type=int, default=4096)
parser.add_argument("--once", action="store_true")
args = parser.parse_args()
if args.memory_bytes > 0:
    resource.setrlimit(resource.RLIMIT_AS, (args.memory_bytes, args.memory_bytes))
resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))

protocol = os.fdopen(3, "w", encoding="utf-8")
requests = sys.stdin


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


namespace = {"__name__": "__main__", "__builtins__": __builtins__}


def run(code):
    out = CappedText(args.output_cap)
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


for line in requests:
    try:
        code = json.loads(line)["code"]
    except (ValueError, KeyError, TypeError):
        answer = {"output": "interpreter: malformed request", "truncated": False}
    else:
        answer = run(code)
    protocol.write(json.dumps(answer) + "\n")
    protocol.flush()
    if args.once:
        break
