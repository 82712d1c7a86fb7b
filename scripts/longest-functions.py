#!/usr/bin/env python3
"""longest-functions.py [N] [DIR...] - the N longest C functions of the product code (lines from the
opening line to the closing brace), longest first. Reads clang-format'ed C: a function starts at a line
at column 0 that ends in '{' and ends at the next line that is exactly '}'."""
import os, re, sys

def functions(path):
    out, start, name = [], None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        if start is None and re.search(r"\)\s*\{$", line) and (line[:1].isalpha() or line[:1] == "_"
                                                              or line.startswith(" ")):
            j = i
            while j > 0 and lines[j].startswith(" "):  # a signature over several lines
                j -= 1
            if not re.match(r"^[A-Za-z_]", lines[j]) or "(" not in "".join(lines[j:i + 1]) \
                    or lines[j].startswith(("typedef", "struct", "enum", "static const", "const", "#")):
                continue
            m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", lines[j])
            start, name = j, m.group(1) if m else "?"
        elif start is not None and line == "}":
            out.append((i - start + 1, name, path, start + 1))
            start = None
    return out

def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    roots = sys.argv[2:] or ["rules", "capture", "vision", "recorder"]
    found = []
    for root in roots:
        for d, _, files in os.walk(root):
            for fn in files:
                if fn.endswith(".c") or fn.endswith(".cpp"):
                    found += functions(os.path.join(d, fn))
    for length, name, path, line in sorted(found, reverse=True)[:n]:
        print(f"{length:5d}  {name}  {path}:{line}")

if __name__ == "__main__":
    main()
