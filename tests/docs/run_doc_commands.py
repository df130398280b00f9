#!/usr/bin/env python3
"""Runs every example command of the given Markdown files, so the docs cannot drift.

What counts as an example (docs/cli.md, "How the examples are checked", says the same
for writers):
  ```sh       each line is a command (a trailing backslash continues it; # lines are comments)
  ```console  lines starting with "$ " are commands; the lines below one, up to the next
              "$ " or the block's end, are output it must print
A command-looking line ("$ ..." or "ckpt ...") in any other fenced block fails the run:
an example cannot opt out of being checked by a missing tag.

Each document runs top to bottom in its own empty scratch directory, which is also
$HOME (so the catalog and the schedule store live there too), with the built ckpt
first on PATH: a document creates what it uses, as a reader following it would.
A command must exit 0 and print no error line, unless it ends in a comment
"# exit N" (e.g. ckpt diff exits 1 when the checkpoints differ).

Shown output is compared line by line: each shown line must match a line of the
real output (stdout then stderr), in order, other lines may come between. In a shown
line a number matches any number, "…" matches anything, runs of spaces match any
run of spaces, and the scratch directory is written "~".

Commands that cannot run in a test are listed in EXCLUDED with the reason; each is
printed when skipped, and a pattern that excludes nothing fails the run (stale list).

`s3://` examples run against the loopback S3 server of the test's fixture: its
settings file (--s3-env, KEY=VALUE lines) is put in every command's environment,
and the lines that start, stop or source the server are skipped.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

EXCLUDED = [
    (r"^bash scripts/demo\.sh\b", "installs Debian packages as root and builds the project; "
     "check-fresh-root.sh runs it in CI"),
    (r"^bash scripts/test\.sh\b", "is the whole test suite, this test included"),
    (r"^ckpt-explorer\b", "the GUI: it runs until closed; tst_explorer_window and the "
     "screenshot tour cover it"),
    (r"^ckpt scheduler run(\s+--json)?\s*(#.*)?$", "the service runs until stopped; "
     "the docs also show `ckpt scheduler run --once`, which runs here"),
]

ERROR_CODES = ("InvalidArgument|NotFound|DataLoss|Unimplemented|FailedPrecondition|OutOfRange|"
               "PermissionDenied|ResourceExhausted|AlreadyExists|Cancelled|Internal")
ERROR_LINE = re.compile(r"^(ckpt: (" + ERROR_CODES + r")\b|.*\b(Error|ERROR)\b|.*Traceback)")
EXIT_COMMENT = re.compile(r"\s+#\s*exits?\s+(\d+)\b[^#]*$")
COMMAND_LIKE = re.compile(r"^\s*(\$ |ckpt\s)")
NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
TIMEOUT_S = 120


class Example:
    def __init__(self, doc, line, command):
        self.doc, self.line, self.command = doc, line, command
        self.expected = []  # (line number, text)

    def where(self):
        return f"{self.doc}:{self.line}"


def parse(doc_path, display_name):
    """The examples of one Markdown file, in order, and the untagged command lines."""
    examples, untagged = [], []
    lines = open(doc_path, encoding="utf-8").read().split("\n")
    fence, tag, pending = None, "", None
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if fence is None:
            m = re.match(r"^(```+|~~~+)\s*([\w-]*)", stripped)
            if m:
                fence, tag, pending = m.group(1), m.group(2), None
            continue
        if stripped.startswith(fence):
            fence = None
            continue
        if tag == "sh":
            if pending is not None:
                pending.command += "\n" + raw
            elif stripped and not stripped.startswith("#"):
                pending = Example(display_name, number, raw)
                examples.append(pending)
            if pending is not None and not raw.rstrip().endswith("\\"):
                pending = None
        elif tag == "console":
            if raw.startswith("$ "):
                pending = Example(display_name, number, raw[2:])
                examples.append(pending)
            elif pending is not None and pending.command.rstrip().endswith("\\"):
                pending.command += "\n" + raw
            elif pending is not None and stripped:
                pending.expected.append((number, stripped))
        elif COMMAND_LIKE.match(raw):
            untagged.append(f"{display_name}:{number}: {stripped}")
    return examples, untagged


def exclusion_for(command):
    for index, (pattern, reason) in enumerate(EXCLUDED):
        if re.search(pattern, command.strip()):
            return index, reason
    return None, None


def line_pattern(shown):
    """A regex for one shown output line (see the module docstring)."""
    parts = []
    for piece in re.split(r"(…|\s+|[0-9]+(?:\.[0-9]+)?)", shown):
        if not piece:
            continue
        if piece == "…":
            parts.append(".*")
        elif piece.isspace():
            parts.append(r"\s+")
        elif NUMBER.fullmatch(piece):
            parts.append(r"-?[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?")
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts))


def check_output(example, output_lines):
    """The first shown line that is missing from the output, in order; None if all are there."""
    position = 0
    for number, shown in example.expected:
        pattern = line_pattern(shown)
        while position < len(output_lines) and not pattern.fullmatch(output_lines[position].strip()):
            position += 1
        if position == len(output_lines):
            return number, shown
        position += 1
    return None


def run_doc(doc, examples, env, keep, used):
    scratch = tempfile.mkdtemp(prefix="ckpt-docs-")
    env = dict(env, HOME=scratch, XDG_DATA_HOME=os.path.join(scratch, ".local", "share"))
    failures, ran = [], 0
    try:
        for example in examples:
            index, reason = exclusion_for(example.command)
            if index is not None:
                used.add(index)
                print(f"SKIP {example.where()}: {example.command.strip()}  ({reason})")
                continue
            m = EXIT_COMMENT.search(example.command)
            want_exit = int(m.group(1)) if m else 0
            print(f"RUN  {example.where()}: {example.command.strip()}", flush=True)
            ran += 1
            try:
                done = subprocess.run(["bash", "-o", "pipefail", "-c", example.command], cwd=scratch, env=env,
                                      capture_output=True, text=True, timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                failures.append(f"{example.where()}: `{example.command.strip()}` ran over {TIMEOUT_S} s")
                continue
            output = (done.stdout + done.stderr).replace(scratch, "~")
            output_lines = output.splitlines()
            problem = None
            if done.returncode != want_exit:
                problem = f"exited {done.returncode}, the doc expects {want_exit}"
            elif want_exit == 0:
                errors = [line for line in output_lines if ERROR_LINE.match(line)]
                if errors:
                    problem = f"printed an error: {errors[0]}"
            if problem is None:
                missing = check_output(example, output_lines)
                if missing:
                    problem = f"does not print the line shown at {example.doc}:{missing[0]}: {missing[1]}"
            if problem:
                tail = "\n    ".join(output_lines[-15:])
                failures.append(f"{example.where()}: `{example.command.strip()}` {problem}\n    {tail}")
    finally:
        if keep:
            print(f"scratch directory kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return ran, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ckpt", required=True, help="the built ckpt executable")
    parser.add_argument("--source-dir", required=True, help="the repository root; docs are named relative to it")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directories")
    parser.add_argument("--python", help="the interpreter `python3` runs in the docs (the project's .venv)")
    parser.add_argument("--python-path", help="prepended to PYTHONPATH: where the built ckpt package is")
    parser.add_argument("--s3-env", help="the running S3 server's settings (scripts/s3-server.sh writes DIR/env)")
    parser.add_argument("docs", nargs="+")
    args = parser.parse_args()

    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(args.ckpt)) + os.pathsep + env.get("PATH", "")
    if args.s3_env:
        with open(args.s3_env, encoding="utf-8") as f:
            for line in f:
                key, sep, value = line.strip().partition("=")
                if sep and key:
                    env[key] = value
        EXCLUDED.append((r"^(bash scripts/s3-server\.sh (start|stop)|set -a; \. build/s3-server/env; set \+a)\b",
                         "the test's S3 fixture runs the server; its settings are in every command's environment"))
    else:
        EXCLUDED.append((r"s3://|s3-server", "no S3 server given (--s3-env); tst_docs_commands has one"))
    env["TZ"] = "UTC"
    env["NO_COLOR"] = "1"
    if not args.python:
        # A build without the Python package (the sanitizer build, or no
        # nanobind): its examples are left to the builds that have it.
        EXCLUDED.append((r"^python3\b", "this build has no Python package (CKPT_BUILD_PYTHON); "
                         "the normal suite runs it"))
    if args.python:
        # `python3` in a doc is this interpreter, with the built package importable.
        shim = tempfile.mkdtemp(prefix="doc-python-")
        with open(os.path.join(shim, "python3"), "w", encoding="utf-8") as f:
            f.write(f'#!/bin/sh\nexec "{os.path.abspath(args.python)}" "$@"\n')
        os.chmod(os.path.join(shim, "python3"), 0o755)
        env["PATH"] = shim + os.pathsep + env["PATH"]
    if args.python_path:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (args.python_path, env.get("PYTHONPATH")) if p)

    total_ran, failures, used = 0, [], set()
    for doc in args.docs:
        examples, untagged = parse(os.path.join(args.source_dir, doc), doc)
        failures += [f"{u}: a command outside a ```sh or ```console block is never run; tag the block"
                     for u in untagged]
        if not examples:
            failures.append(f"{doc}: no example commands found (the test would prove nothing)")
        ran, doc_failures = run_doc(doc, examples, env, args.keep, used)
        total_ran += ran
        failures += doc_failures
    failures += [f"EXCLUDED pattern {pattern!r} matches no command any more; remove it"
                 for index, (pattern, _) in enumerate(EXCLUDED) if index not in used]

    print(f"\n{total_ran} commands run, {len(used)} exclusion rules used, {len(failures)} failures")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
