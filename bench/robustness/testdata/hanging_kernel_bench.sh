#!/bin/sh
# A kernel-bench whose every command hangs: robustness.py must count its
# runs as hung and, with --check, miss a target.
exec sleep 600
