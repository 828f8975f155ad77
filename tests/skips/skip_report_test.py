#!/usr/bin/env python3
"""scripts/skip_report.py on a ctest JUnit file with planted skips: it counts
each reason, and with --vulkan-listed a skip for lack of Vulkan fails the
run (exit 1) while other skips (a missing nvcc) do not."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts",
                      "skip_report.py")


def case(name, status, out, message=""):
    skipped = '<skipped message="%s"/>' % message if status == "notrun" else ""
    return ('<testcase name="%s" classname="%s" time="0" status="%s">%s'
            "<system-out>%s</system-out></testcase>" %
            (name, name, status, skipped, out))


def junit(*cases):
    return ('<?xml version="1.0" encoding="UTF-8"?><testsuite name="x">%s'
            "</testsuite>" % "".join(cases))


VULKAN = case("E2eTest.Runs", "notrun",
              "[ RUN ] E2eTest.Runs\ntests/e2e/e2e_test.cpp:155: Skipped\n"
              "no Vulkan device listed (the Vulkan driver enumerated no "
              "physical device; ...)\n[  SKIPPED ] E2eTest.Runs",
              "SKIP_REGULAR_EXPRESSION_MATCHED")
NVCC = case("CudaTest.Builds", "notrun",
            "x.cpp:9: Skipped\nnvcc is not installed; this test needs it\n",
            "SKIP_REGULAR_EXPRESSION_MATCHED")
SCRIPT_SKIP = case("runtime_e2e_run", "notrun", "skip: glslc not found\n",
                   "SKIP_RETURN_CODE=77")
PASSED = case("A.b", "run", "ok")


def report(xml, *flags):
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write(xml)
    try:
        p = subprocess.run([sys.executable, SCRIPT, f.name] + list(flags),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    finally:
        os.unlink(f.name)
    return p.returncode, p.stdout


class SkipReportTest(unittest.TestCase):
    def test_counts_each_reason(self):
        rc, out = report(junit(VULKAN, NVCC, NVCC.replace("Builds", "Runs"),
                               SCRIPT_SKIP, PASSED))
        self.assertEqual(rc, 0, out)
        self.assertIn("skipped: 4 of 5 tests, by reason:", out)
        self.assertRegex(out, r"\n +2  nvcc is not installed; this test needs")
        self.assertRegex(out, r"\n +1  no Vulkan device listed\n")
        self.assertRegex(out, r"\n +1  glslc not found\n")

    def test_a_vulkan_skip_fails_where_vulkan_is_listed(self):
        rc, out = report(junit(VULKAN, PASSED), "--vulkan-listed")
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL: 1 test(s) skipped for lack of a Vulkan device",
                      out)

    def test_other_skips_pass_where_vulkan_is_listed(self):
        rc, out = report(junit(NVCC, SCRIPT_SKIP, PASSED), "--vulkan-listed")
        self.assertEqual(rc, 0, out)
        self.assertIn("skipped: 2 of 3 tests", out)

    def test_an_unreadable_file_fails(self):
        rc, out = report("<testsuite", "--vulkan-listed")
        self.assertEqual(rc, 1, out)
        self.assertIn("cannot read", out)


if __name__ == "__main__":
    unittest.main()
