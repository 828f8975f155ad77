#!/usr/bin/env python3
"""Functions stay short: lists every function definition under the DIRs
(default: workbench/, compiler/lib/ and runtime/) longer than LIMIT lines
(from its signature to its closing brace) and exits 1 when there is one.

usage: check_function_lengths.py REPO_ROOT LIMIT [DIR...]

Orchestrating functions read best at IREE's ~50-line runOnOperation size;
past LIMIT a function holds several concepts, each of which wants a name.
ctest runs it at 80 over common/, toolchains/, runtime/ and workbench/, and
at 120 over compiler/lib/ (whose functions are not split yet).
Generated code (.inc, TableGen output in the build tree) is not scanned.

Unit tests (`*_test.cpp`) are not scanned: a TEST body is a scenario read
top to bottom (arrange, act, expect), and splitting it into helpers hides
what it checks; the rule is for the code under test.

The scanner reads C++ as braces: comments, string and character literals
(raw strings included) and preprocessor lines are blanked, then a `{` whose
head (the text since the last `;`, `{` or `}`) holds a parameter list, at
namespace or class scope, opens a function. Lambdas and control flow count
toward the function around them."""
import os, re, sys

def tokens(text):
    """Yields (char, line) for code characters: comments, strings, chars and
    preprocessor lines blanked."""
    i, n, line = 0, len(text), 1
    at_line_start = True
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1; at_line_start = True; yield c, line - 1; i += 1; continue
        if at_line_start and c == '#':
            # preprocessor line (with continuations)
            while i < n and text[i] != '\n':
                if text[i] == '\\' and i + 1 < n and text[i+1] == '\n':
                    line += 1; i += 2; continue
                i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith('//', i):
            while i < n and text[i] != '\n': i += 1
            continue
        if text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            line += text.count('\n', i, j); i = j; continue
        m = re.match(r'(u8|u|U|L)?R"([^(\s]*)\(', text[i:i+40])
        if m:
            end = ')' + m.group(2) + '"'
            j = text.find(end, i + m.end()); j = n if j < 0 else j + len(end)
            line += text.count('\n', i, j); i = j; yield '"', line; continue
        if c in '"\'':
            if c == "'" and i > 0 and text[i-1].isalnum():  # digit separator 1'000
                i += 1; continue
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            i = j + 1; yield c, line; continue
        yield c, line; i += 1

def classify(head, parent):
    h = re.sub(r'\s+', ' ', head).strip()
    h = re.sub(r'^(template ?<[^{]*?> ?)+', '', h)
    if re.match(r'(inline )?namespace\b', h) or re.match(r'extern "C"', h) or h.startswith('extern "'):
        return 'ns'
    if re.match(r'((typedef|using|static|constexpr|const|inline) )*(class|struct|enum|union)\b', h) and '(' not in h.split('{')[0].split(':')[0]:
        return 'type'
    if parent in ('ns', 'type', None) and ')' in h and not h.endswith('=') and '=' not in h.split('(')[0]:
        return 'fn'
    return 'block'

def scan(path, limit):
    text = open(path, errors='replace').read()
    stack = []  # (kind, startline)
    head, head_line = [], None
    out = []
    for c, line in tokens(text):
        if c == '{':
            parent = stack[-1][0] if stack else None
            kind = classify(''.join(head), parent) if parent in (None, 'ns', 'type') else 'block'
            stack.append((kind, head_line or line))
            head, head_line = [], None
        elif c == '}':
            if stack:
                kind, start = stack.pop()
                if kind == 'fn' and line - start + 1 > limit:
                    out.append((line - start + 1, start))
            head, head_line = [], None
        elif c == ';':
            head, head_line = [], None
        else:
            if not c.isspace() and head_line is None:
                head_line = line
            head.append(c)
    return out

root = sys.argv[1]; limit = int(sys.argv[2])
dirs = sys.argv[3:] or ['workbench', 'compiler/lib', 'runtime']
found = []
for d in dirs:
    for dp, _, files in os.walk(os.path.join(root, d)):
        for f in files:
            if f.endswith('_test.cpp'):
                continue  # tests are exempt (see the docstring)
            if f.endswith(('.cpp', '.h')):
                p = os.path.join(dp, f)
                for length, start in scan(p, limit):
                    found.append((length, os.path.relpath(p, root), start))
for length, p, start in sorted(found, reverse=True):
    print(f'{p}:{start}: {length} lines')
sys.exit(1 if found else 0)
