#!/usr/bin/env python3
"""Reads a report.csv with Python's csv module, as a spreadsheet import or a
script would, and checks it is inert: every row has the header's column
count, and no cell starts with a character a spreadsheet reads as a formula
(= + - @ TAB CR) unless the whole cell is a number. Prints the cells of the
first column as JSON (the benchmark names as read back).

usage: check_csv.py report.csv
exit 0 ok, 1 a check failed (printed).
"""
import csv
import json
import sys


def is_number(cell):
    try:
        float(cell)
        return True
    except ValueError:
        return False


def main():
    with open(sys.argv[1], newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, strict=True))
    if not rows:
        print("empty CSV")
        return 1
    failed = False
    for number, row in enumerate(rows, 1):
        if len(row) != len(rows[0]):
            print("row %d has %d cells, the header %d: %r" %
                  (number, len(row), len(rows[0]), row))
            failed = True
        for cell in row:
            if cell and cell[0] in "=+-@\t\r" and not is_number(cell):
                print("row %d: a formula cell %r" % (number, cell))
                failed = True
    print(json.dumps([row[0] for row in rows[1:]]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
