#!/usr/bin/env python3
"""Checks that code comments cite sections of the docs that exist, and that the
docs' own links lead somewhere.

Comments cite a section by its title: docs/format.md, "String tensors"; a
comment may list several titles after one document ("Keys", "Slot variables")
and may continue on the next comment line. A cited title must be a heading of that
document, without its section number, or the start of one. A bare section number (§5.4) is refused:
numbers move when a document grows, titles stay.

Links in README.md and docs/*.md to a relative path must name a file that
exists, and a #fragment must be the anchor of one of its headings (GitHub's
rule: lower case, punctuation dropped, spaces to hyphens).
"""
import argparse
import os
import re
import sys

SOURCE_DIRS = ("engine", "app", "ui", "tests", "bench", "proto")
SOURCE_EXTENSIONS = (".h", ".cpp", ".cu", ".cuh", ".proto", ".py", ".cmake")
CITATION = re.compile(r"docs/([a-z_-]+\.md),\s*((?:\"[^\"]+\"(?:\s*(?:,|and|to|//)\s*)*)+)")
TITLE = re.compile(r"\"([^\"]+)\"")


def headings(path, keep_numbers=False):
    titles = set()
    pattern = r"^#+\s+(.*?)\s*$" if keep_numbers else r"^#+\s+(?:[0-9.]+\s+)?(.*?)\s*$"
    for line in open(path, encoding="utf-8"):
        m = re.match(pattern, line)
        if m:
            titles.add(m.group(1))
    return titles


def anchor(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def check_links(root, problems):
    """Relative links of README.md and docs/*.md; returns how many were checked."""
    pages = [os.path.join(root, "README.md")] + [
        os.path.join(root, "docs", n) for n in sorted(os.listdir(os.path.join(root, "docs"))) if n.endswith(".md")]
    count = 0
    for page in pages:
        text = open(page, encoding="utf-8").read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # links inside code blocks are not links
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            file = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            rel = os.path.relpath(page, root)
            count += 1
            if not os.path.exists(file):
                problems.append(f"{rel}: links to {target}, which does not exist")
            elif fragment and file.endswith(".md"):
                anchors = {anchor(h) for h in headings(file, keep_numbers=True)}
                if fragment not in anchors:
                    problems.append(f"{rel}: links to {target}, but no heading there has that anchor")
    return count


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
    links = check_links(root, problems)
    print(f"{count} section citations and {links} links checked")
    for p in problems:
        print(f"FAIL {p}")
    if count == 0:
        print("FAIL no citations found: the pattern no longer matches the comments")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
