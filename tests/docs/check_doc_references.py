#!/usr/bin/env python3
"""Checks that code comments cite sections of the docs that exist.

Comments cite a section by its title: docs/format.md, "String tensors"; a
comment may list several titles after one document ("Keys", "Slot variables")
and may continue on the next comment line. A cited title must be a heading of that
document, without its section number, or the start of one. A bare section number (§5.4) is refused:
numbers move when a document grows, titles stay.
"""
import argparse
import os
import re
import sys

SOURCE_DIRS = ("engine", "app", "ui", "tests", "bench", "proto")
SOURCE_EXTENSIONS = (".h", ".cpp", ".cu", ".cuh", ".proto", ".py", ".cmake")
CITATION = re.compile(r"docs/([a-z_-]+\.md),\s*((?:\"[^\"]+\"(?:\s*(?:,|and|to|//)\s*)*)+)")
TITLE = re.compile(r"\"([^\"]+)\"")


def headings(path):
    titles = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^#+\s+(?:[0-9.]+\s+)?(.*?)\s*$", line)
        if m:
            titles.add(m.group(1))
    return titles


def cited(title, available):
    """A title cites a heading that is the title, or the title followed by details:
    "Keys" cites "7.3 Keys", "ckpt restore" cites "`ckpt restore SRC --into TARGET ...`"."""
    title = title.replace("`", "")
    for heading in available:
        plain = heading.replace("`", "")
        if plain == title or plain.startswith(title + " "):
            return True
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source-dir", required=True)
    args = parser.parse_args()
    root = args.source_dir
    docs = {}
    problems, count = [], 0
    for top in SOURCE_DIRS:
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                path = os.path.join(folder, name)
                if not name.endswith(SOURCE_EXTENSIONS) or os.path.samefile(path, __file__):
                    continue
                rel = os.path.relpath(path, root)
                text = open(path, encoding="utf-8", errors="replace").read()
                # Join comment continuations so a citation may wrap.
                joined = re.sub(r"\n\s*(//|#)\s*", " ", text)
                for number, line in enumerate(text.split("\n"), start=1):
                    if "§" in line:
                        problems.append(f"{rel}:{number}: cites a section number; cite its title instead")
                for m in CITATION.finditer(joined):
                    doc = m.group(1)
                    doc_path = os.path.join(root, "docs", doc)
                    if doc not in docs:
                        docs[doc] = headings(doc_path) if os.path.exists(doc_path) else None
                    if docs[doc] is None:
                        problems.append(f"{rel}: cites docs/{doc}, which does not exist")
                        continue
                    for title in TITLE.findall(m.group(2)):
                        count += 1
                        if not cited(title, docs[doc]):
                            problems.append(f"{rel}: cites docs/{doc}, \"{title}\", which is not a heading there")
    print(f"{count} section citations checked")
    for p in problems:
        print(f"FAIL {p}")
    if count == 0:
        print("FAIL no citations found: the pattern no longer matches the comments")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
