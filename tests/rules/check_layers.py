#!/usr/bin/env python3
"""Keeps the engine's layers honest: every #include of an engine module
(an internal header "format/...", or a public header "ckpt/..." owned by the
module that implements it) must point to a module the including
module sits on, as the table in docs/architecture.md ("Module dependencies")
allows, directly or through the layers in between. A module folder without a
row, a public header no module owns and a cycle in the table are errors too.
  check_layers.py --source-dir DIR
"""
import argparse
import os
import re
import sys

TABLE_HEADING = "## Module dependencies"


def read_table(root):
    """[(layer modules), (modules it sits on)], header-only headers."""
    path = os.path.join(root, "docs", "architecture.md")
    text = open(path, encoding="utf-8").read()
    start = text.find(TABLE_HEADING)
    if start < 0:
        raise SystemExit(f"check_layers: no '{TABLE_HEADING}' section in docs/architecture.md")
    section = text[start + len(TABLE_HEADING):]
    end = section.find("\n## ")
    section = section if end < 0 else section[:end]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        layer = tuple(re.findall(r"`([a-z_]+)/?`", cells[0]))
        below = tuple(re.findall(r"`([a-z_]+)/?`", cells[1]))
        rows.append((layer, below))
    vocabulary = set()
    for line in section.splitlines():
        if line.startswith("Vocabulary"):
            vocabulary |= set(re.findall(r"`(ckpt/[a-z_]+\.h)`", line))
    return rows, vocabulary


def engine_files(root):
    engine = os.path.join(root, "engine")
    for module in sorted(os.listdir(engine)):
        top = os.path.join(engine, module)
        if not os.path.isdir(top) or module == "include":
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith((".h", ".cpp", ".cu", ".cuh")):
                    path = os.path.join(dirpath, name)
                    yield module, os.path.relpath(path, root).replace(os.sep, "/"), path


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def check(root):
    rows, vocabulary = read_table(root)
    layer_of = {}
    for i, (layer, _) in enumerate(rows):
        for m in layer:
            layer_of[m] = i
    findings = []
    for i, (layer, below) in enumerate(rows):
        for m in below:
            if m not in layer_of:
                findings.append(f"docs/architecture.md: layer {'+'.join(layer)} sits on '{m}', which has no row")
    # Transitive closure of each layer; a layer reaching itself is a cycle.
    reach = {}
    for i in range(len(rows)):
        seen, todo = set(), [layer_of[m] for m in rows[i][1] if m in layer_of]
        while todo:
            j = todo.pop()
            if j in seen:
                continue
            seen.add(j)
            todo.extend(layer_of[m] for m in rows[j][1] if m in layer_of)
        if i in seen:
            findings.append(f"docs/architecture.md: layer {'+'.join(rows[i][0])} depends on itself through the table")
        reach[i] = seen

    files = list(engine_files(root))
    modules = sorted({m for m, _, _ in files})
    for m in modules:
        if m not in layer_of:
            findings.append(f"engine/{m}/: a module folder without a row in docs/architecture.md, '{TABLE_HEADING}'")

    # Who owns each public header: the module with a source of the same
    # name (format/bundle_reader.cpp for ckpt/bundle_reader.h), else the one
    # whose source includes it first (its own header), else the one module
    # that includes it at all. Vocabulary headers belong to every layer.
    owner = {}
    by_name = {}
    first_include = {}
    includers = {}
    for module, rel, path in files:
        text = open(path, encoding="utf-8", errors="replace").read()
        if rel.endswith(".cpp"):
            by_name.setdefault(os.path.basename(rel)[:-4], module)
            first = INCLUDE.search(text)
            if first and first.group(1).startswith("ckpt/"):
                first_include.setdefault(first.group(1), module)
        for m in INCLUDE.finditer(text):
            includers.setdefault(m.group(1), set()).add(module)
    for header_dir in ("engine/include/ckpt", "engine/demo/include/ckpt"):
        for name in sorted(os.listdir(os.path.join(root, header_dir))):
            h = "ckpt/" + name
            if h in vocabulary:
                continue
            if name[:-2] in by_name:
                owner[h] = by_name[name[:-2]]
            elif h in first_include:
                owner[h] = first_include[h]
            elif len(includers.get(h, ())) == 1:
                owner[h] = next(iter(includers[h]))
            else:
                findings.append(f"{header_dir}/{name}: no module implements it (no {name[:-2]}.cpp, no source that "
                                "includes it first) and docs/architecture.md does not list it as vocabulary")

    for module, rel, path in files:
        if module not in layer_of:
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            target = owner.get(inc) if inc.startswith("ckpt/") else (inc.split("/")[0] if "/" in inc else None)
            if target is None or target not in layer_of or target == module:
                continue
            mine, theirs = layer_of[module], layer_of[target]
            if theirs == mine or theirs in reach[mine]:
                continue
            line = text.count("\n", 0, m.start()) + 1
            findings.append(f"{rel}:{line}: {module} includes {inc} ({target}), a module it does not sit on "
                            f"(docs/architecture.md, '{TABLE_HEADING}')")
    return findings


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source-dir", required=True)
    args = parser.parse_args()
    findings = check(args.source_dir)
    for f in findings:
        print(f)
    if findings:
        print(f"check_layers: {len(findings)} finding(s)")
        return 1
    print("check_layers: every module includes only the layers it sits on")
    return 0


if __name__ == "__main__":
    sys.exit(main())
