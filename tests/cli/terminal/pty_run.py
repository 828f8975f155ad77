#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal, as a user's shell would, and says
when its output first matched a pattern: what a progress line on a terminal
looks like, and how soon it appears.

usage: pty_run.py --until REGEX [--timeout S] [--columns N] -- COMMAND...

Prints one JSON object: {"matched": bool, "matched_after_s": seconds from
the start to the first output that matched (null if none), "first_output_s",
"exit": the command's exit status or null when it was stopped, "output":
everything read (escape sequences kept)}. Once REGEX matched (or at the
timeout) the command's process group gets SIGINT, then SIGKILL after 10 s:
nothing outlives the script. Exit 0 when REGEX matched, 1 otherwise.
"""
import argparse
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import fcntl
import time


def parse_args(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--until", required=True)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--columns", type=int, default=120)
    parser.add_argument("command", nargs="+")
    return parser.parse_args(argv)


def spawn(command, columns):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.environ.pop("NO_COLOR", None)
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    return pid, fd


def stop(pid):
    """SIGINT to the child's session (pty.fork made it a session leader),
    then SIGKILL; returns the exit status or None."""
    deadline = time.monotonic() + 10
    try:
        os.killpg(pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.05)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    return None


def main(argv):
    args = parse_args(argv)
    pattern = re.compile(args.until)
    start = time.monotonic()
    pid, fd = spawn(args.command, args.columns)
    output, first, matched, exit_status = b"", None, None, None
    while time.monotonic() - start < args.timeout:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal (it exited)
                chunk = b""
            if not chunk:
                break
            output += chunk
            if first is None:
                first = time.monotonic() - start
            if pattern.search(output.decode("utf-8", "replace")):
                matched = time.monotonic() - start
                break
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        exit_status = os.waitstatus_to_exitcode(status)
    else:
        stop(pid)
    os.close(fd)
    print(json.dumps({"matched": matched is not None,
                      "matched_after_s": matched,
                      "first_output_s": first,
                      "exit": exit_status,
                      "output": output.decode("utf-8", "replace")}))
    return 0 if matched is not None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
