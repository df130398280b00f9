#!/usr/bin/env python3
"""One home per rule: fails when code that belongs to one module appears
anywhere else (docs/architecture.md, "One implementation per rule").

  storage  Checkpoint bytes are read, written, listed, committed and deleted
           through engine/storage/ (storage/dispatch.h): no POSIX file call,
           no std::filesystem, no iostream file, no libzip path open outside it.
  naming   Bundle file names (".index", ".data-", "-of-") are spelled only by
           engine/format/bundle_naming.cpp and ckpt/bundle_naming.h; everyone
           else calls indexFileName(), dataFileName(), parseDataFileName(),
           bundlePrefixOf().
  sqlite   SQLite is used by the catalog's database layer and the schedule
           store only, and never named by an installed header.
  threads  Engine threads come from platform/parallel.h (runWorkers,
           forEachItem, forEachRange); std::thread / std::async elsewhere only
           where listed below, each for a reason parallel.h cannot serve.

Every exception is listed below with its reason; a new one needs the same.
Comments are ignored; the naming rule looks inside string literals, the
others outside them.
  check_source_rules.py --source-dir DIR
"""
import argparse
import os
import re
import sys

SOURCE_EXTENSIONS = (".h", ".cpp", ".cu", ".cuh")

# Names that are only ever the C library's: flagged however they are called.
POSIX_ONLY = (
    "openat|creat|pread|pwrite|pread64|pwrite64|lstat|fstat|fstatat|statx|opendir|fdopendir|readdir|closedir|"
    "renameat|renameat2|unlink|unlinkat|mkdir|mkdirat|rmdir|fsync|fdatasync|ftruncate|mmap|munmap|madvise|linkat|"
    "symlink|symlinkat|readlink|readlinkat|realpath|faccessat|flock|sync_file_range|posix_fadvise|fopen|fdopen|"
    "freopen|chmod|fchmod|chown|utime|utimes|utimensat|nftw|scandir"
)
# Names our own classes use too (BundleReader::open, WritableFile::close,
# GraphEdit::rename): flagged when called as the global ::name().
POSIX_SHARED = "open|read|write|close|stat|rename|link|access|truncate|remove|glob"

RULES = [
    {
        "name": "storage",
        "what": "a direct file-system call",
        "home": "engine/storage/ (storage/dispatch.h)",
        "scope": ("engine/",),
        "allowed": ("engine/storage/",),
        "in_literals": False,
        "patterns": [
            # A free or ::-qualified call, never a member (.read(), ->open())
            # nor another scope's (Checkpoint::open()).
            r"(?<![\w.>:])(?:::)?(?:" + POSIX_ONLY + r")\s*\(",
            r"(?<![\w.>:])::(?:" + POSIX_SHARED + r")\s*\(",
            r"\bstd::filesystem\b|\bfs::\w",
            r"\bstd::(?:ifstream|ofstream|fstream|filebuf|fopen|freopen|rename|tmpfile)\b",
            r"#\s*include\s*<(?:filesystem|fstream|dirent\.h|sys/mman\.h|sys/stat\.h|fcntl\.h|sys/file\.h)>",
            # Libraries that would open files themselves.
            r"\bzip_open\s*\(|\bpng_image_(?:write_to_file|begin_read_from_file)\s*\(|\bsqlite3_open",
        ],
        "exceptions": {
            "engine/platform/file.cpp":
                "path text (lexical normalisation, absolute and canonical paths, /proc/self/exe) and the access(2) "
                "probe of a schedule's or a writer's destination: names, no bytes",
            "engine/platform/process_lock.cpp":
                "the scheduler's lock file: a local flock between processes, not checkpoint bytes",
            "engine/catalog/database.cpp":
                "SQLite owns its database file; the catalog only stats it and swaps in a migrated copy",
            "engine/convert/npz.cpp":
                "libzip opens the .npz itself: an export's archive is built at a local temp path (export refuses "
                "other storage) that TempOutput then syncs and renames through the storage layer, and an import "
                "reads a local archive; neither is checkpoint bytes",
        },
    },
    {
        "name": "naming",
        "what": "a bundle naming literal",
        "home": "engine/format/bundle_naming.cpp (ckpt/bundle_naming.h)",
        "scope": ("engine/", "app/", "ui/"),
        "allowed": ("engine/format/bundle_naming.cpp", "engine/include/ckpt/bundle_naming.h"),
        "in_literals": True,
        "patterns": [r'^(?:\.index|\.data-|-of-|\.data)$', r"%0?5d-of-%0?5d", r"\.data-%"],
        "exceptions": {
            # The explorer's views, left to the explorer's own refactoring:
            # each becomes a call of ckpt::bundlePrefixOf / ckpt::indexFileName.
            "ui/views/restore_view.cpp": "strips .index from a chosen target (ckpt::bundlePrefixOf)",
            "ui/jobs/surgery_jobs.cpp": "probes a free destination name (ckpt::indexFileName)",
        },
    },
    {
        "name": "sqlite",
        "what": "SQLite",
        "home": "engine/catalog/ (database.cpp, sql.h) and the schedule store (schedule_store.cpp, schedule_requests.cpp)",
        "scope": ("engine/", "app/", "ui/"),
        "allowed": ("engine/catalog/", "engine/schedule/schedule_store.cpp", "engine/schedule/schedule_requests.cpp",
                    "engine/schedule/store_sql.h"),
        "in_literals": False,
        "patterns": [r"\bsqlite3\w*", r"#\s*include\s*<sqlite3\.h>"],
        "exceptions": {
            "engine/about/build_info.cpp": "reports the version of the SQLite library the engine links (ckpt --version)",
        },
    },
    {
        "name": "threads",
        "what": "a thread",
        "home": "engine/platform/parallel.cpp (runWorkers, forEachItem, forEachRange)",
        "scope": ("engine/", "app/"),
        "allowed": ("engine/platform/parallel.cpp", "engine/platform/parallel.h"),
        "in_literals": False,
        "patterns": [r"\bstd::(?:thread|jthread|async)\b(?!::hardware_concurrency)", r"\bpthread_create\s*\("],
        "exceptions": {
            "engine/storage/local_files.cpp":
                "O_DIRECT double buffering: one stage is written in the background while the next fills, an overlap "
                "that parallel.h's fork-join cannot express",
            "engine/manage/checkpoint_manager.cpp":
                "the one writer thread of asynchronous saves, alive as long as the manager (a queue, not a pool)",
            "engine/schedule/run_watch.h": "the run watcher's thread, alive as long as the run",
            "engine/schedule/run_watch.cpp": "the run watcher's thread, alive as long as the run",
            "engine/schedule/program_runs.h": "the program-run recorder's writer thread, alive as long as the checkpointer",
            "engine/schedule/program_runs.cpp": "the program-run recorder's writer thread, alive as long as the checkpointer",
            "engine/convert/export.cpp": "reads the next tensor while the current one is written (one overlap, not a pool)",
            "engine/format/index_stream.cpp":
                "an index decoded into a bounded queue while the caller consumes it (one producer per stream, not a pool): "
                "parallel.h's in-line fallback would leave the consumer waiting on a producer that never runs",
            "app/cli/schedule_output.h": "ckpt schedule run --watch: a watcher beside the waiting main thread",
            "app/cli/schedule_output.cpp": "ckpt schedule run --watch: a watcher beside the waiting main thread",
            "engine/objstore/remote_writable_file.cpp":
                "a multipart upload's parts go out while the writer fills the next (a bounded queue of futures), an "
                "overlap with the caller that parallel.h's fork-join cannot express",
            "app/cli/rank_processes.cpp":
                "demo-train --world: two pipe pumps per child rank, alive as long as the child",
        },
    },
]

COMMENT_OR_LITERAL = re.compile(
    r'//[^\n]*|/\*.*?\*/|R"([^(\s]*)\((?:.|\n)*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def split_source(text):
    """(code, literals): code with comments blanked and literals emptied
    (line numbers kept), and [(line, literal text)]."""
    literals = []
    out = []
    last = 0
    for m in COMMENT_OR_LITERAL.finditer(text):
        out.append(text[last:m.start()])
        token = m.group(0)
        line = text.count("\n", 0, m.start()) + 1
        if token.startswith('"') or token.startswith('R"'):
            body = token[1:-1] if token.startswith('"') else token[token.index("(") + 1:token.rindex(")")]
            literals.append((line, body))
            out.append('""' + "\n" * token.count("\n"))
        elif token.startswith("'"):
            out.append("' '")
        else:
            out.append("\n" * token.count("\n"))
        last = m.end()
    out.append(text[last:])
    return "".join(out), literals


def source_files(root):
    for top in ("engine", "app", "ui"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXTENSIONS):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, root).replace(os.sep, "/"), path


def check(root):
    findings = []
    used_exceptions = set()
    for rel, path in source_files(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        code, literals = split_source(text)
        code_lines = code.split("\n")
        for rule in RULES:
            if not rel.startswith(rule["scope"]) or rel.startswith(rule["allowed"]):
                continue
            hits = []
            if rule["in_literals"]:
                for line, body in literals:
                    if any(re.search(p, body) for p in rule["patterns"]):
                        hits.append((line, '"' + body + '"'))
            else:
                for number, line in enumerate(code_lines, 1):
                    if any(re.search(p, line) for p in rule["patterns"]):
                        hits.append((number, line.strip()))
            if not hits:
                continue
            if rel in rule["exceptions"]:
                used_exceptions.add((rule["name"], rel))
                continue
            for line, what in hits:
                findings.append(f"{rel}:{line}: {rule['name']}: {rule['what']} outside its home {rule['home']}: {what}")
    # An exception nothing needs any more is stale: drop it from the list.
    for rule in RULES:
        for rel in rule["exceptions"]:
            if (rule["name"], rel) not in used_exceptions:
                findings.append(f"{rel}: {rule['name']}: listed as an exception but has no such code any more "
                                "(remove it from tests/rules/check_source_rules.py)")
    return findings


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source-dir", required=True)
    args = parser.parse_args()
    findings = check(args.source_dir)
    for f in findings:
        print(f)
    if findings:
        print(f"check_source_rules: {len(findings)} finding(s)")
        return 1
    print("check_source_rules: every rule in its home (" + ", ".join(r["name"] for r in RULES) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
