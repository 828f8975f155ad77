#!/usr/bin/env python3
"""Renders an HTML file in headless Chromium and checks what a reader would
see: the page printed no console message (errors, failed loads, script
exceptions) and the screenshot is not blank; with --dom-contains, the DOM
Chromium built (--dump-dom) contains each TEXT (e.g. an element's class).

usage: check_html_render.py PAGE.html WORK_DIR [--dom-contains TEXT]...
exit 0 ok, 1 a check failed (printed), 77 no chromium (a skip, not a pass).
Chromium runs with a timeout in its own process group, killed on expiry.
"""
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import zlib

TIMEOUT_S = 90


def find_chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def png_pixels(path):
    """(width, height, rows of bytes per pixel) of an 8-bit RGB/RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            if depth != 8 or color not in (2, 6):
                raise ValueError("unexpected PNG format %d/%d" % (depth, color))
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def run_chromium(argv):
    """(exit code, stdout, stderr) of Chromium, or None when it timed out
    (killed with its whole process group)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None
    return (proc.returncode, out.decode("utf-8", "replace"),
            err.decode("utf-8", "replace"))


def check_dom(chromium, page, work, texts):
    """0 when the DOM Chromium built from |page| contains every one of
    |texts|, else 1 (printed)."""
    ran = run_chromium([chromium, "--headless", "--no-sandbox",
                        "--disable-gpu", "--no-first-run",
                        "--disable-extensions", "--disable-sync",
                        "--user-data-dir=" + os.path.join(work, "profile-dom"),
                        "--dump-dom", "file://" + page])
    if ran is None:
        print("FAIL: chromium --dump-dom did not finish within %d s" % TIMEOUT_S)
        return 1
    code, dom, err = ran
    if code != 0 or "</html>" not in dom:
        print("FAIL: chromium --dump-dom exited %d:\n%s" % (code, err[-2000:]))
        return 1
    missing = [t for t in texts if t not in dom]
    if missing:
        print("FAIL: the DOM lacks: " + ", ".join(repr(t) for t in missing))
        return 1
    print("DOM: %d characters, all %d texts present" % (len(dom), len(texts)))
    return 0


def parse_args(args):
    """(page, work, texts) or None for a bad command line."""
    positional, texts = [], []
    i = 0
    while i < len(args):
        if args[i] == "--dom-contains" and i + 1 < len(args):
            texts.append(args[i + 1])
            i += 2
        else:
            positional.append(args[i])
            i += 1
    if len(positional) != 2:
        return None
    return positional[0], positional[1], texts


def main():
    parsed = parse_args(sys.argv[1:])
    if parsed is None:
        print(__doc__, file=sys.stderr)
        return 2
    page, work = os.path.abspath(parsed[0]), os.path.abspath(parsed[1])
    texts = parsed[2]
    chromium = find_chromium()
    if not chromium:
        print("SKIP: chromium is not installed (Debian package chromium)")
        return 77
    os.makedirs(work, exist_ok=True)
    shot = os.path.join(work, "screenshot.png")
    argv = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
            "--no-first-run", "--disable-extensions", "--disable-sync",
            "--user-data-dir=" + os.path.join(work, "profile"),
            "--window-size=1200,1600", "--screenshot=" + shot,
            "--enable-logging=stderr", "--v=0", "file://" + page]
    ran = run_chromium(argv)
    if ran is None:
        print("FAIL: chromium did not finish within %d s" % TIMEOUT_S)
        return 1
    returncode, _, err = ran
    console = [l for l in err.splitlines() if re.search(r":CONSOLE[:(]", l)]
    if console:
        print("FAIL: the page printed console messages:\n" + "\n".join(console))
        return 1
    if returncode != 0 or not os.path.exists(shot):
        print("FAIL: chromium exited %d without a screenshot:\n%s"
              % (returncode, err[-2000:]))
        return 1
    width, height, bpp, rows = png_pixels(shot)
    background = rows[0][:bpp]
    differing = sum(1 for row in rows for x in range(0, len(row), bpp)
                    if row[x:x + bpp] != background)
    colors = len({row[x:x + 3] for row in rows[::4]
                  for x in range(0, len(row), bpp * 4)})
    share = differing / float(width * height)
    print("screenshot %dx%d: %.1f%% non-background pixels, %d colours"
          % (width, height, share * 100, colors))
    if share < 0.01 or colors < 4:
        print("FAIL: the screenshot is blank")
        return 1
    return check_dom(chromium, page, work, texts) if texts else 0


if __name__ == "__main__":
    sys.exit(main())
