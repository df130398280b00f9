#!/usr/bin/env python3
"""clang-tidy over the given sources, remembering which were clean.

scripts/lint.sh runs it. A source is checked again only when something
clang-tidy would see has changed: clang-tidy's version, the .clang-tidy
files, the source's compile command, or the content of the source or of any
header it includes (the build's own dependency record, `ninja -t deps`).
Clean results are kept under $CKPT_TIDY_CACHE (default
~/.cache/ckpt-explorer/clang-tidy), one empty file per key; findings are
never cached. Keys hold paths relative to the source tree, so clones at
different places share them. Sources the build has no dependency record for
are always checked.

    scripts/tidy_cached.py BUILD_DIR SOURCE...

Prints each finding (sorted, once) and a summary line on stderr; exits 1 if
there was any finding.
"""
import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys

FINDING = re.compile(r"(warning|error):")


def ninja_deps(build):
    """Object path (relative to BUILD) -> the files it was compiled from."""
    out = subprocess.run(["ninja", "-C", str(build), "-t", "deps"], capture_output=True, text=True, check=True).stdout
    deps, current = {}, None
    for line in out.splitlines():
        if not line.strip():
            current = None
        elif not line.startswith(" "):
            name, _, state = line.partition(":")
            current = None if "(VALID)" not in state else deps.setdefault(name, [])
        elif current is not None:
            current.append(line.strip())
    return deps


class Keys:
    def __init__(self, root, build):
        self.root, self.build = root, build
        version = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True, check=True).stdout
        configs = subprocess.run(["git", "-C", str(root), "ls-files", "*.clang-tidy"], capture_output=True, text=True,
                                 check=True).stdout.split()
        base = hashlib.sha256(version.encode())
        for config in sorted(configs):
            base.update(config.encode() + b"\0" + (root / config).read_bytes())
        self.base = base.hexdigest()
        self.file_hashes = {}
        commands = json.loads((build / "compile_commands.json").read_text())
        self.commands = {str(pathlib.Path(c["directory"], c["file"]).resolve()): c for c in commands}
        self.deps = ninja_deps(build)

    def relative(self, text):
        return text.replace(str(self.root) + "/", "")

    def file_hash(self, path):
        if path not in self.file_hashes:
            try:
                self.file_hashes[path] = hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()
            except OSError:
                self.file_hashes[path] = "missing"
        return self.file_hashes[path]

    def key(self, source):
        command = self.commands.get(str((self.root / source).resolve()))
        if command is None:
            return None
        args = command.get("arguments") or shlex.split(command["command"])
        output = args[args.index("-o") + 1] if "-o" in args[:-1] else None
        deps = self.deps.get(output)
        if not deps:
            return None
        h = hashlib.sha256(self.base.encode())
        h.update(self.relative(" ".join(args)).encode())
        for dep in sorted(deps):
            full = dep if os.path.isabs(dep) else os.path.normpath(os.path.join(self.build, dep))
            h.update(b"\0" + self.relative(full).encode() + b"\0" + self.file_hash(full).encode())
        return h.hexdigest()


def tidy(build, source):
    run = subprocess.run(["clang-tidy", "-p", str(build), "--quiet", source], capture_output=True, text=True)
    return [line for line in run.stdout.splitlines() if FINDING.search(line)]


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = pathlib.Path(__file__).resolve().parent.parent
    build = pathlib.Path(sys.argv[1]).resolve()
    sources = sys.argv[2:]
    cache = pathlib.Path(os.environ.get("CKPT_TIDY_CACHE") or
                         pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") /
                         "ckpt-explorer" / "clang-tidy")
    cache.mkdir(parents=True, exist_ok=True)
    keys = Keys(root, build)
    todo, cached = [], 0
    for source in sources:
        key = keys.key(source)
        if key is not None and (cache / key).exists():
            cached += 1
        else:
            todo.append((source, key))
    findings = set()
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for (source, key), found in zip(todo, pool.map(lambda item: tidy(build, item[0]), todo)):
            findings.update(found)
            if not found and key is not None:
                (cache / key).touch()
    for line in sorted(findings):
        print(line)
    print(f"tidy: {len(sources)} sources, {cached} unchanged since a clean check, {len(todo)} checked",
          file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
