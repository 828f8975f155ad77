#!/usr/bin/env python3
"""Checks the CI examples in this directory against what the pipeline relies on.

    check_examples.py KERNEL_BENCH

Loads each YAML file (python3-yaml), checks the fields docs/ci.md relies on
(job order, artifact names, the shard matrix against the shard count, the
Indexed Job's completions against KB_SHARD_COUNT, a regular Slurm array),
runs `bash -n` on the Slurm script, and checks that every `kernel-bench`
command line in the three files names a command and flags that the built
KERNEL_BENCH lists in its --help. Exit 0 when all hold, 1 with one line per
problem, 77 (skip) without python3-yaml.
"""
import os
import re
import shlex
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("python3-yaml is not installed; skipping")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
problems = []


def check(condition, what):
    if not condition:
        problems.append(what)
    return condition


def load(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return yaml.safe_load(f)


def kernel_bench_lines(text):
    """Each `kernel-bench COMMAND ...` in |text| (lines joined at a trailing
    backslash), up to the end of its shell command (; || && |)."""
    text = text.replace("\\\n", " ")
    for line in text.splitlines():
        comment = line.lstrip().startswith("#")
        for m in re.finditer(r"(?<![\w-])kernel-bench ([a-z]+)", line):
            rest = re.split(r";|\|\||&&|\|", line[m.start():])[0]
            yield rest.strip(), comment


_root_help = None


def root_help(binary):
    """`kernel-bench --help`: its commands, one per line."""
    global _root_help
    if _root_help is None:
        _root_help = subprocess.run([binary, "--help"], capture_output=True,
                                    text=True).stdout
    return _root_help


def check_flags(binary, source, lines):
    helps = {}
    for line, comment in lines:
        try:
            words = shlex.split(line)
        except ValueError:
            words = line.split()
        if len(words) < 2:
            continue
        command = words[1]
        if comment and not re.search(r"^\s+" + re.escape(command) + r"\s",
                                     root_help(binary), re.M):
            continue  # prose in a comment ("kernel-bench turns them ...")
        if command not in helps:
            run = subprocess.run([binary, command, "--help"],
                                 capture_output=True, text=True)
            helps[command] = run.stdout if run.returncode == 0 else None
        if not check(helps[command] is not None,
                     f"{source}: `{line}`: kernel-bench has no command `{command}`"):
            continue
        for word in words[2:]:
            flag = word.split("=", 1)[0]
            if flag.startswith("--") or re.fullmatch(r"-[a-zA-Z]", flag):
                check(re.search(r"(^|[\s,])" + re.escape(flag) + r"(?![\w-])",
                                helps[command]) is not None,
                      f"{source}: `{line}`: `kernel-bench {command}` has no flag {flag}")


def steps_text(job):
    return "\n".join(step.get("run", "") for step in job.get("steps", []))


def uses(job, action):
    return [s for s in job.get("steps", []) if s.get("uses", "").startswith(action)]


def check_github(binary):
    wf = load("github-actions.yml")
    triggers = wf.get("on", wf.get(True))  # YAML 1.1 reads `on` as true
    check(isinstance(triggers, dict) and "pull_request" in triggers and "push" in triggers,
          "github-actions.yml: must run on push (main's baseline) and pull_request (the gate)")
    jobs = wf.get("jobs", {})
    if not check(set(jobs) >= {"build", "bench", "gate"},
                 "github-actions.yml: jobs build, bench and gate are required"):
        return
    build, bench, gate = jobs["build"], jobs["bench"], jobs["gate"]
    check(bench.get("needs") == "build", "github-actions.yml: bench must need build")
    check(gate.get("needs") == "bench", "github-actions.yml: gate must need bench")
    check("kernel-bench bundle" in steps_text(build),
          "github-actions.yml: the build job must run kernel-bench bundle")
    uploads = {s["with"]["name"] for s in uses(build, "actions/upload-artifact")}
    downloads = {s["with"].get("name") for s in uses(bench, "actions/download-artifact")}
    check(uploads & downloads, "github-actions.yml: bench must download the bundle build uploads")
    shards = bench.get("strategy", {}).get("matrix", {}).get("shard")
    count = int(wf.get("env", {}).get("SHARDS", "0"))
    check(shards == list(range(count)),
          f"github-actions.yml: matrix.shard {shards} must be 0..SHARDS-1 (SHARDS={count})")
    check(bench.get("strategy", {}).get("fail-fast") is False,
          "github-actions.yml: one failing shard must not cancel the others (fail-fast: false)")
    env = {}
    for step in bench.get("steps", []):
        env.update(step.get("env", {}))
    check("matrix.shard" in str(env.get("KB_SHARD_INDEX", "")),
          "github-actions.yml: KB_SHARD_INDEX must come from matrix.shard")
    check("SHARDS" in str(env.get("KB_SHARD_COUNT", "")),
          "github-actions.yml: KB_SHARD_COUNT must be SHARDS")
    check("kernel-bench bench bundle.tar" in steps_text(bench),
          "github-actions.yml: bench must bench the bundle")
    shard_uploads = [s["with"]["name"] for s in uses(bench, "actions/upload-artifact")]
    gate_patterns = [s["with"].get("pattern", "") for s in uses(gate, "actions/download-artifact")]
    check(any("matrix.shard" in n for n in shard_uploads) and
          any(p.rstrip("*") and n.startswith(p.rstrip("*")) for p in gate_patterns for n in shard_uploads),
          "github-actions.yml: gate must download every shard's artifact")
    text = steps_text(gate)
    check("kernel-bench merge" in text and "kernel-bench compare" in text,
          "github-actions.yml: gate must merge and compare")
    check(uses(gate, "actions/cache/save") and uses(gate, "actions/cache/restore"),
          "github-actions.yml: gate must restore main's report and store it on main")
    every = [steps_text(j) for j in jobs.values()]
    check_flags(binary, "github-actions.yml", kernel_bench_lines("\n".join(every)))


def check_kubernetes(binary):
    job = load("kubernetes-indexed-job.yaml")
    check(job.get("apiVersion") == "batch/v1" and job.get("kind") == "Job",
          "kubernetes-indexed-job.yaml: must be a batch/v1 Job")
    spec = job.get("spec", {})
    check(spec.get("completionMode") == "Indexed",
          "kubernetes-indexed-job.yaml: completionMode must be Indexed (JOB_COMPLETION_INDEX)")
    pod = spec.get("template", {}).get("spec", {})
    check(pod.get("restartPolicy") == "Never",
          "kubernetes-indexed-job.yaml: restartPolicy must be Never")
    containers = pod.get("containers", [])
    if not check(len(containers) == 1, "kubernetes-indexed-job.yaml: one container"):
        return
    c = containers[0]
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    check(env.get("KB_SHARD_COUNT") == str(spec.get("completions")),
          f"kubernetes-indexed-job.yaml: KB_SHARD_COUNT {env.get('KB_SHARD_COUNT')} "
          f"must equal completions {spec.get('completions')}")
    check("nvidia.com/gpu" in c.get("resources", {}).get("limits", {}),
          "kubernetes-indexed-job.yaml: each pod needs a GPU")
    command = " ".join(c.get("command", []) + c.get("args", []))
    check("$JOB_COMPLETION_INDEX" in command,
          "kubernetes-indexed-job.yaml: each pod must write its own results directory")
    check_flags(binary, "kubernetes-indexed-job.yaml", kernel_bench_lines(command))


def check_slurm(binary):
    path = os.path.join(HERE, "slurm-array.sh")
    syntax = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
    check(syntax.returncode == 0, f"slurm-array.sh: bash -n: {syntax.stderr.strip()}")
    text = open(path, encoding="utf-8").read()
    array = re.search(r"^#SBATCH --array=(\S+)", text, re.M)
    check(array and re.fullmatch(r"\d+-\d+(:\d+)?(%\d+)?", array.group(1)),
          "slurm-array.sh: #SBATCH --array must be a regular range (a sparse one is refused)")
    check(re.search(r"^#SBATCH --gres=gpu", text, re.M),
          "slurm-array.sh: each task needs a GPU (--gres=gpu:1)")
    check("$SLURM_ARRAY_TASK_ID" in text,
          "slurm-array.sh: each task must write its own results directory")
    check_flags(binary, "slurm-array.sh", kernel_bench_lines(text))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    binary = sys.argv[1]
    check_github(binary)
    check_kubernetes(binary)
    check_slurm(binary)
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s) in examples/ci")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
