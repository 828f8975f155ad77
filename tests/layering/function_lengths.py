#!/usr/bin/env python3
"""Lists functions longer than a limit in the given directories.

Orchestrating functions stay short (README.md, "Layout"): a function that
needs comments to mark its phases wants its phases to be functions. This
finds every function body (free functions, methods, lambdas at namespace
scope, TEST bodies) in hand-written C++ under the given directories and
prints those longer than --max lines as `file:line: name (N lines)`.

With --allow FILE, offenders listed there (`path name`, one a line, `#`
comments) are tolerated, so the check can fail only on new ones; an entry
that is no longer an offender is reported so the list shrinks.

Generated code (*.inc, build trees) is not scanned. Exit 0 when no
offender is outside the allow list, 1 otherwise.
"""
import argparse
import os
import re
import sys

SKIP_DIRS = {"build", "testdata", ".git"}
EXTENSIONS = (".cpp", ".h", ".cc")
CONTROL = re.compile(r"^(if|for|while|switch|catch|do|else|try|return)\b")
SCOPE = re.compile(r"(^|\s)(namespace|class|struct|union|enum)\b")


def strip_code(text):
    """Blanks comments, string and character literals and preprocessor
    lines, keeping newlines so line numbers survive."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            # Preprocessor line, with continuations.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        if c == "\n":
            out.append(c)
            at_line_start = True
            i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
            continue
        raw = re.match(r'R"([^(\s]*)\(', text[i:i + 20])
        if raw:
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + len(raw.group(0)))
            end = n if end < 0 else end + len(close)
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
            continue
        if c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum():
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def function_name(preamble):
    """The name before the parameter list of a function definition, or
    None when |preamble| does not end in one."""
    text = " ".join(preamble.split())
    text = re.sub(r"^template\s*<.*?>\s*", "", text)
    if not text or CONTROL.match(text) or "(" not in text:
        return None
    if SCOPE.search(text.split("(")[0]):
        return None
    head = text.split("(")[0]
    if "=" in head and not re.search(r"operator\s*\S*=", head):
        # `x = [&](...) {` is a lambda; report it under its variable name.
        if "[" in text:
            return head.split("=")[0].split()[-1] + " (lambda)"
        return None
    words = head.split()
    return words[-1] if words else None


def scan(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        code = strip_code(f.read())
    results = []
    # Stack of (kind, name, start line): kind is "scope" (namespace, class,
    # extern "C") where definitions live, "function" or "block".
    stack = []
    preamble, line = [], 1
    for c in code:
        if c == "\n":
            line += 1
            preamble.append(" ")
        elif c == "{":
            text = "".join(preamble)
            inside_function = any(kind == "function" for kind, _, _ in stack)
            name = None if inside_function else function_name(text)
            if name:
                stack.append(("function", name, line))
            elif not inside_function and (SCOPE.search(text) or
                                          'extern' in text or not text.strip()):
                stack.append(("scope", None, line))
            else:
                stack.append(("block", None, line))
            preamble = []
        elif c == "}":
            if stack:
                kind, name, start = stack.pop()
                if kind == "function":
                    results.append((start, name, line - start + 1))
            preamble = []
        elif c == ";":
            preamble = []
        else:
            preamble.append(c)
    return results


def sources(dirs):
    for top in dirs:
        for root, subdirs, files in os.walk(top):
            subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS)
            for name in sorted(files):
                if name.endswith(EXTENSIONS):
                    yield os.path.join(root, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--max", type=int, default=120)
    parser.add_argument("--root", default=".")
    parser.add_argument("--allow", help="file of tolerated `path name` lines")
    parser.add_argument("--skip-tests", action="store_true",
                        help="ignore *_test.cpp files")
    args = parser.parse_args()
    os.chdir(args.root)

    allowed = set()
    if args.allow:
        with open(args.allow) as f:
            for entry in f:
                entry = entry.split("#")[0].strip()
                if entry:
                    allowed.add(tuple(entry.split(None, 1)))

    new, tolerated = [], set()
    for path in sources(args.dirs):
        if args.skip_tests and path.endswith("_test.cpp"):
            continue
        for start, name, length in scan(path):
            if length <= args.max:
                continue
            key = (path, name)
            if key in allowed:
                tolerated.add(key)
                print("%s:%d: %s (%d lines, allowed)" % (path, start, name, length))
            else:
                new.append("%s:%d: %s (%d lines)" % (path, start, name, length))
    for entry in new:
        print(entry)
    for path, name in sorted(allowed - tolerated):
        print("%s: %s is no longer over %d lines: remove it from %s"
              % (path, name, args.max, args.allow))
    if new:
        print("%d function(s) longer than %d lines: split them into named "
              "steps" % (len(new), args.max))
        return 1
    print("function lengths: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
