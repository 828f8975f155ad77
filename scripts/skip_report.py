#!/usr/bin/env python3
"""The skipped tests of a ctest run, counted by reason; the run's gate.

  skip_report.py JUNIT_XML [--vulkan-listed]

JUNIT_XML is what `ctest --output-junit` wrote. Prints, last, how many
tests were skipped and why (the message after gtest's "Skipped" line, or a
script's "skip: ..." line), so a green run says what it did not test.

With --vulkan-listed (the caller found a Vulkan device: vulkaninfo or
`kernel-bench devices`), a test skipped for lack of Vulkan (its reason starts
with "no Vulkan device listed", runtime/testing/device_environment.h) means
the tests and the machine disagree: exit 1. Exit 1 also when the file cannot
be read. Stdlib only.
"""
import argparse
import re
import sys
import xml.etree.ElementTree as ET

NO_VULKAN = "no Vulkan device listed"
MAX_REASON = 110


def skip_reason(case):
    """Why |case| (a <testcase> ctest marked notrun) was skipped."""
    out = case.findtext("system-out") or ""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        # gtest: "path/to/test.cpp:42: Skipped" then the message.
        if re.search(r":\d+: Skipped$", line):
            for text in lines[i + 1:]:
                if text.strip():
                    return text.strip()
            return "(gtest skip without a message)"
    for line in reversed(lines):
        if line.startswith("skip:"):
            return line[len("skip:"):].strip()
    skipped = case.find("skipped")
    why = skipped.get("message") if skipped is not None else ""
    return "(no reason printed; ctest: %s)" % (why or "not run")


def group(reason):
    """The key tests are counted under: the reason's start, so one cause
    with different details (paths, device names) is one line."""
    if reason.startswith(NO_VULKAN):
        return NO_VULKAN
    return reason if len(reason) <= MAX_REASON else reason[:MAX_REASON] + "..."


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("junit")
    ap.add_argument("--vulkan-listed", action="store_true")
    args = ap.parse_args()
    try:
        cases = ET.parse(args.junit).getroot().iter("testcase")
    except (OSError, ET.ParseError) as e:
        print("skip report: cannot read %s: %s" % (args.junit, e))
        return 1
    total, by_reason = 0, {}
    for case in cases:
        total += 1
        if case.get("status") != "notrun":
            continue
        by_reason.setdefault(group(skip_reason(case)), []).append(
            case.get("name"))
    skipped = sum(len(v) for v in by_reason.values())
    print("skipped: %d of %d tests%s" % (skipped, total,
                                         ", by reason:" if skipped else ""))
    for reason, names in sorted(by_reason.items(), key=lambda kv: -len(kv[1])):
        shown = ", ".join(names[:3])
        more = " (+%d)" % (len(names) - 3) if len(names) > 3 else ""
        print("  %4d  %s\n        e.g. %s%s" % (len(names), reason, shown,
                                                more))
    vulkan = by_reason.get(NO_VULKAN, [])
    if args.vulkan_listed and vulkan:
        print("FAIL: %d test(s) skipped for lack of a Vulkan device, but this "
              "machine lists one: a test's device check or the Vulkan driver "
              "is wrong" % len(vulkan))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
