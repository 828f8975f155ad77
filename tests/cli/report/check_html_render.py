#!/usr/bin/env python3
"""Renders an HTML file in headless Chromium and checks what a reader would
see: the page printed no console message (errors, failed loads, script
exceptions) and the screenshot is not blank; with --dom-contains, the DOM
Chromium built (--dump-dom) contains each TEXT (e.g. an element's class);
with --width W (repeatable), at a viewport W pixels wide (1280 a laptop, 390
a phone) a screenshot is taken (screenshot-W.png, not blank) and the layout
is measured in the page: nothing makes the page wider than the viewport
(a wide table scrolls in its own box) and no chart label starts left of its
chart (cut off).

usage: check_html_render.py PAGE.html WORK_DIR [--dom-contains TEXT]...
                            [--width W]...
exit 0 ok, 1 a check failed (printed), 77 no chromium (a skip, not a pass).
Chromium runs with a timeout in its own process group, killed on expiry.
"""
import html
import json
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


# Measures the layout once the page has rendered and leaves the result in
# the DOM, where --dump-dom shows it.
MEASURE = """<script>
(function () {
  var cut = [];
  document.querySelectorAll("svg text").forEach(function (t) {
    var box = t.getBBox();
    if (box.x < -0.5) cut.push(t.textContent);
  });
  var r = {viewport: window.innerWidth,
           page: document.documentElement.scrollWidth, cut: cut};
  // In a frame (a viewport narrower than Chromium's smallest window), the
  // result goes to the page that --dump-dom prints.
  var target = window.parent !== window ? window.parent.document : document;
  target.body.setAttribute("data-kb-layout", JSON.stringify(r));
})();
</script>"""

# Chromium's headless window is at least 500 px wide: a phone's viewport is
# a frame of that width in a page around it.
MIN_WINDOW = 500
FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe src="%s" style="width:%dpx;height:900px;border:0"></iframe>
</body></html>"""


def check_width(chromium, page, work, width):
    """0 when, at a viewport |width| wide, the screenshot is not blank, the
    page is no wider than the viewport and no chart label is cut; else 1."""
    measured = os.path.join(work, "measured-%d.html" % width)
    text = open(page, encoding="utf-8").read()
    with open(measured, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", MEASURE + "</body>", 1))
    if width < MIN_WINDOW:
        framed = os.path.join(work, "framed-%d.html" % width)
        with open(framed, "w", encoding="utf-8") as f:
            f.write(FRAME % (os.path.basename(measured), width))
        measured = framed
    common = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
              "--no-first-run", "--disable-extensions", "--disable-sync",
              "--hide-scrollbars", "--allow-file-access-from-files",
              "--window-size=%d,900" % max(width, MIN_WINDOW)]
    shot = os.path.join(work, "screenshot-%d.png" % width)
    ran = run_chromium(common + [
        "--user-data-dir=" + os.path.join(work, "profile-shot-%d" % width),
        "--screenshot=" + shot, "file://" + measured])
    if ran is None or not os.path.exists(shot):
        print("FAIL: no screenshot at %d px" % width)
        return 1
    if blank_share(shot) < 0.01:
        print("FAIL: the screenshot at %d px is blank" % width)
        return 1
    ran = run_chromium(common + [
        "--user-data-dir=" + os.path.join(work, "profile-dom-%d" % width),
        "--virtual-time-budget=5000", "--dump-dom", "file://" + measured])
    found = re.search(r'data-kb-layout="([^"]*)"', ran[1] if ran else "")
    if not found:
        print("FAIL: no layout measured at %d px" % width)
        return 1
    layout = json.loads(html.unescape(found.group(1)))
    print("at %d px: page %d px wide, %d chart label(s) cut; %s"
          % (width, layout["page"], len(layout["cut"]), shot))
    if layout["page"] > layout["viewport"]:
        print("FAIL: at %d px the page is %d px wide: something does not fit "
              "and does not scroll in its own box" % (width, layout["page"]))
        return 1
    if layout["cut"]:
        print("FAIL: chart labels cut on the left: %s" % layout["cut"][:5])
        return 1
    return 0


def blank_share(shot):
    """The share of the screenshot's pixels that differ from its corner."""
    width, height, bpp, rows = png_pixels(shot)
    background = rows[0][:bpp]
    differing = sum(1 for row in rows for x in range(0, len(row), bpp)
                    if row[x:x + bpp] != background)
    return differing / float(width * height)


def parse_args(args):
    """(page, work, texts, widths) or None for a bad command line."""
    positional, texts, widths = [], [], []
    i = 0
    while i < len(args):
        if args[i] == "--dom-contains" and i + 1 < len(args):
            texts.append(args[i + 1])
            i += 2
        elif args[i] == "--width" and i + 1 < len(args) and \
                args[i + 1].isdigit():
            widths.append(int(args[i + 1]))
            i += 2
        else:
            positional.append(args[i])
            i += 1
    if len(positional) != 2:
        return None
    return positional[0], positional[1], texts, widths


def main():
    parsed = parse_args(sys.argv[1:])
    if parsed is None:
        print(__doc__, file=sys.stderr)
        return 2
    page, work = os.path.abspath(parsed[0]), os.path.abspath(parsed[1])
    texts, widths = parsed[2], parsed[3]
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
    if texts and check_dom(chromium, page, work, texts):
        return 1
    for w in widths:
        if check_width(chromium, page, work, w):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
