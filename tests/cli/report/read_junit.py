#!/usr/bin/env python3
"""Reads a JUnit XML file with junitparser (Debian python3-junitparser), the
library CI tools use to merge and inspect JUnit results, and prints what it
understood as JSON: {"tests", "failures", "skipped", "cases": [{"classname",
"name", "result", "type", "message"}]}. Exit 1 when it cannot be parsed, 77 when junitparser is not installed (a skip).

usage: read_junit.py junit.xml
"""
import json
import sys

try:
    from junitparser import Failure, JUnitXml, Skipped, Error
except ImportError as e:
    print("junitparser is not installed (Debian python3-junitparser): %s" % e)
    sys.exit(77)


def main():
    xml = JUnitXml.fromfile(sys.argv[1])
    cases = []
    for suite in xml:
        for case in suite:
            result, kind, message = "passed", "", ""
            for r in case.result:
                if isinstance(r, (Failure, Error)):
                    result = "failure" if isinstance(r, Failure) else "error"
                elif isinstance(r, Skipped):
                    result = "skipped"
                kind, message = r.type or "", r.message or ""
            cases.append({"classname": case.classname, "name": case.name,
                          "result": result, "type": kind, "message": message,
                          "time": case.time})
    xml.update_statistics()
    print(json.dumps({"tests": xml.tests, "failures": xml.failures,
                      "errors": xml.errors, "skipped": xml.skipped,
                      "cases": cases}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
