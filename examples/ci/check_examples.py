#!/usr/bin/env python3
"""Checks the CI examples in this directory the way the CI engines read them.

    check_examples.py KERNEL_BENCH     every check below, then the self-test
    check_examples.py --self-test      only the self-test (no binary needed)

Loads each YAML file (python3-yaml) and checks the fields docs/ci.md relies
on: the GitHub workflow's jobs, images, caches, artifacts, shard matrix and
exit-code handling; the Kubernetes manifests against the batch/v1 Job, v1 Pod
and v1 PersistentVolumeClaim schemas (required fields and types, the rules
the API server enforces for Indexed Jobs, backoffLimitPerIndex and
podFailurePolicy, volumes that name claims defined beside them) and the
pipeline's own needs (shard count, GPU, per-index results); the Slurm
script (a regular array, the dependent gate, `sbatch --parsable` output);
the Containerfile's stages. Runs `bash -n` on every shell script, and checks
that every `kernel-bench` command line names a command and flags that the
built KERNEL_BENCH lists in its --help.

Then the linters the engines' users run, each only where it is installed
(the ones skipped are named; a missing tool never fails the check):
actionlint on the workflow, yamllint on the YAML files, shellcheck on the
shell scripts, on the workflow's `run:` steps, on the Job's `sh -c` script
and on the Containerfile's RUN instructions.

The self-test plants faults (a Job with backoffLimitPerIndex but no
completionMode Indexed, restartPolicy Always, a claim that no PVC defines,
a PVC that is not ReadWriteMany, ...) and fails unless each is caught.

Exit 0 when all hold, 1 with one line per problem, 2 usage, 77 (skip)
without python3-yaml.
"""
import copy
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("python3-yaml is not installed; skipping")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
WORKFLOW = "github-actions.yml"
MANIFEST = "kubernetes-indexed-job.yaml"
SLURM = "slurm-array.sh"
CONTAINERFILE = "Containerfile"
SCRIPTS = ["bench-shard.sh", "gate.sh", "kubernetes-run.sh", SLURM]

problems = []
tools_ran = []
tools_skipped = []


def check(condition, what):
    if not condition:
        problems.append(what)
    return condition


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def load(name):
    return yaml.safe_load(read(name))


def load_all(name):
    return [d for d in yaml.safe_load_all(read(name)) if d is not None]


# --- kernel-bench command lines against the binary's --help ---------------

def kernel_bench_lines(text):
    """Each `kernel-bench COMMAND ...` in |text| (lines joined at a trailing
    backslash), up to the end of its shell command (; || && |)."""
    text = text.replace("\\\n", " ")
    for line in text.splitlines():
        comment = line.lstrip().startswith("#")
        for m in re.finditer(r"(?<![\w/=.-])kernel-bench ([a-z]+)(?=\s|$)", line):
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


# --- GitHub Actions ---------------------------------------------------------

def steps_text(job):
    return "\n".join(step.get("run", "") for step in job.get("steps", []))


def uses(job, action):
    return [s for s in job.get("steps", []) if s.get("uses", "").startswith(action)]


def runs_on(job):
    labels = job.get("runs-on", [])
    return [labels] if isinstance(labels, str) else list(labels)


def check_github(binary):
    wf = load(WORKFLOW)
    triggers = wf.get("on", wf.get(True))  # YAML 1.1 reads `on` as true
    check(isinstance(triggers, dict) and "pull_request" in triggers and "push" in triggers,
          f"{WORKFLOW}: must run on push (main's baseline) and pull_request (the gate)")
    jobs = wf.get("jobs", {})
    if not check(set(jobs) >= {"build", "bench", "gate"},
                 f"{WORKFLOW}: jobs build, bench and gate are required"):
        return
    build, bench, gate = jobs["build"], jobs["bench"], jobs["gate"]
    check(bench.get("needs") == "build", f"{WORKFLOW}: bench must need build")
    check(gate.get("needs") == "bench", f"{WORKFLOW}: gate must need bench")

    # build: the prebuilt image or caches, never the whole project again.
    text = steps_text(build)
    check("setup.sh" not in text,
          f"{WORKFLOW}: the build job must not run scripts/setup.sh (it compiles "
          "kernel-bench and LLVM-linked code on every run); use the build image")
    check("image" in (build.get("container") or {}) or uses(build, "actions/cache"),
          f"{WORKFLOW}: the build job must run in the build image or restore caches")
    check(uses(build, "actions/cache"),
          f"{WORKFLOW}: the build job must keep kernel-bench's build cache (actions/cache)")
    check("kernel-bench build" in text and "kernel-bench bundle" in text,
          f"{WORKFLOW}: the build job must run kernel-bench build and kernel-bench bundle")
    check("nvcc" in text,
          f"{WORKFLOW}: the build job must check for nvcc (else the bundle is Vulkan-only)")
    check(not any("gpu" in str(label).lower() for label in runs_on(build)),
          f"{WORKFLOW}: the build job must run on a CPU runner")
    uploads = {s["with"]["name"] for s in uses(build, "actions/upload-artifact")}
    downloads = {s["with"].get("name") for s in uses(bench, "actions/download-artifact")}
    check(uploads & downloads, f"{WORKFLOW}: bench must download the bundle build uploads")

    # bench: one shard per GPU runner, 77 its own outcome.
    check(any("gpu" in str(label).lower() for label in runs_on(bench)),
          f"{WORKFLOW}: bench must run on GPU runners (a `gpu` label)")
    shards = bench.get("strategy", {}).get("matrix", {}).get("shard")
    count = int(wf.get("env", {}).get("SHARDS", "0"))
    check(shards == list(range(count)),
          f"{WORKFLOW}: matrix.shard {shards} must be 0..SHARDS-1 (SHARDS={count})")
    check(bench.get("strategy", {}).get("fail-fast") is False,
          f"{WORKFLOW}: one failing shard must not cancel the others (fail-fast: false)")
    env = {}
    for step in bench.get("steps", []):
        env.update(step.get("env", {}))
    check("matrix.shard" in str(env.get("KB_SHARD_INDEX", "")),
          f"{WORKFLOW}: KB_SHARD_INDEX must come from matrix.shard")
    check("SHARDS" in str(env.get("KB_SHARD_COUNT", "")),
          f"{WORKFLOW}: KB_SHARD_COUNT must be SHARDS")
    text = steps_text(bench)
    check(re.search(r"(kb-bench-shard|kernel-bench bench) bundle\.tar", text),
          f"{WORKFLOW}: bench must bench the bundle")
    check(re.search(r"\b77\b", text),
          f"{WORKFLOW}: the bench step must treat exit 77 (no device) as its own outcome")
    shard_uploads = uses(bench, "actions/upload-artifact")
    check(shard_uploads and all("always()" in str(s.get("if", "")) for s in shard_uploads),
          f"{WORKFLOW}: a shard's report must be uploaded whatever its exit code (if: always())")
    shard_names = [s["with"]["name"] for s in shard_uploads]
    check(any("exit-code" in str(s["with"].get("path", "")) for s in shard_uploads),
          f"{WORKFLOW}: each shard must upload its exit-code (the gate tells 77 from a failure)")

    # gate: a plain runner, every shard's artifact, merge + compare.
    check(not any(str(label).lower() in ("gpu", "self-hosted") for label in runs_on(gate)),
          f"{WORKFLOW}: the gate needs no GPU: run it on a plain runner, not {runs_on(gate)}")
    check("!cancelled()" in str(gate.get("if", "")),
          f"{WORKFLOW}: the gate must run when a shard failed (if: !cancelled() ...)")
    gate_patterns = [s["with"].get("pattern", "") for s in uses(gate, "actions/download-artifact")]
    check(any("matrix.shard" in n for n in shard_names) and
          any(p.rstrip("*") and n.startswith(p.rstrip("*")) for p in gate_patterns for n in shard_names),
          f"{WORKFLOW}: gate must download every shard's artifact")
    text = steps_text(gate)
    check("kb-gate" in text or ("kernel-bench merge" in text and "kernel-bench compare" in text),
          f"{WORKFLOW}: gate must merge and compare")
    check(uses(gate, "actions/cache/save") and uses(gate, "actions/cache/restore"),
          f"{WORKFLOW}: gate must restore main's report and store it on main")
    every = [steps_text(j) for j in jobs.values()]
    check_flags(binary, WORKFLOW, kernel_bench_lines("\n".join(every)))


# --- Kubernetes: schema ------------------------------------------------------

DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
QUANTITY = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?")
ACCESS_MODES = {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"}


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_str_list(v):
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def is_quantity(v):
    return is_int(v) or (isinstance(v, str) and QUANTITY.fullmatch(v) is not None)


class Schema:
    """Collects what one set of documents gets wrong."""

    def __init__(self, source):
        self.source = source
        self.found = []

    def need(self, condition, where, what):
        if not condition:
            self.found.append(f"{self.source}: {where}: {what}")
        return condition

    def name(self, value, where, label=False):
        pattern, limit = (DNS_LABEL, 63) if label else (DNS_SUBDOMAIN, 253)
        return self.need(isinstance(value, str) and len(value) <= limit and
                         pattern.fullmatch(value) is not None, where,
                         f"{value!r} is not a DNS-1123 {'label' if label else 'subdomain'}")

    def mapping(self, parent, key, where, required=True):
        v = parent.get(key) if isinstance(parent, dict) else None
        if v is None:
            self.need(not required, where, f"{key} is required")
            return {}
        return v if self.need(isinstance(v, dict), where, f"{key} must be a mapping") else {}

    def documents(self, docs):
        claims = {d.get("metadata", {}).get("name") for d in docs
                  if isinstance(d, dict) and d.get("kind") == "PersistentVolumeClaim"}
        for i, doc in enumerate(docs):
            where = f"document {i + 1}"
            if not self.need(isinstance(doc, dict), where, "must be a mapping"):
                continue
            api, kind = doc.get("apiVersion"), doc.get("kind")
            self.need(isinstance(api, str), where, "apiVersion (a string) is required")
            self.need(isinstance(kind, str), where, "kind (a string) is required")
            meta = self.mapping(doc, "metadata", where)
            name = meta.get("name")
            where = f"{kind} {name}"
            self.need(name is not None, where, "metadata.name is required")
            if name is not None:
                # A Job's name is part of its pods' names and labels.
                self.name(name, where + " metadata.name", label=(kind == "Job"))
            labels = meta.get("labels", {})
            self.need(isinstance(labels, dict) and
                      all(isinstance(v, str) for v in labels.values()),
                      where, "metadata.labels must map to strings")
            if (api, kind) == ("v1", "PersistentVolumeClaim"):
                self.pvc(doc, where)
            elif (api, kind) == ("batch/v1", "Job"):
                self.job(doc, where, claims)
            elif (api, kind) == ("v1", "Pod"):
                self.pod_spec(self.mapping(doc, "spec", where), where + " spec", claims,
                              {"Always", "OnFailure", "Never"})
            else:
                self.need(False, where, f"unexpected {api} {kind} (expected batch/v1 Job, "
                          "v1 Pod or v1 PersistentVolumeClaim)")

    def pvc(self, doc, where):
        spec = self.mapping(doc, "spec", where)
        modes = spec.get("accessModes")
        if self.need(is_str_list(modes) and modes, where, "spec.accessModes must be a list of strings"):
            self.need(set(modes) <= ACCESS_MODES, where,
                      f"spec.accessModes {modes}: each must be one of {sorted(ACCESS_MODES)}")
            self.need("ReadWriteMany" in modes, where,
                      "spec.accessModes must include ReadWriteMany (every shard's pod mounts it)")
        requests = self.mapping(self.mapping(spec, "resources", where + " spec"),
                                "requests", where + " spec.resources")
        self.need(is_quantity(requests.get("storage")), where,
                  f"spec.resources.requests.storage must be a quantity such as 1Gi "
                  f"(got {requests.get('storage')!r})")

    def job(self, doc, where, claims):
        spec = self.mapping(doc, "spec", where)
        w = where + " spec"
        mode = spec.get("completionMode", "NonIndexed")
        self.need(mode in ("NonIndexed", "Indexed"), w,
                  f"completionMode {mode!r} must be NonIndexed or Indexed")
        for key in ("completions", "parallelism", "backoffLimit", "backoffLimitPerIndex",
                    "maxFailedIndexes", "activeDeadlineSeconds", "ttlSecondsAfterFinished"):
            if key in spec:
                self.need(is_int(spec[key]) and spec[key] >= 0, w,
                          f"{key} must be a non-negative integer (got {spec[key]!r})")
        completions = spec.get("completions")
        if mode == "Indexed":
            self.need(is_int(completions) and completions >= 1, w,
                      "completionMode Indexed requires completions >= 1")
        template = self.mapping(spec, "template", w)
        pod = self.mapping(template, "spec", w + ".template")
        restart = pod.get("restartPolicy")
        if "backoffLimitPerIndex" in spec:
            self.need(mode == "Indexed", w,
                      "backoffLimitPerIndex requires completionMode: Indexed")
            self.need(restart == "Never", w,
                      "backoffLimitPerIndex requires template.spec.restartPolicy: Never")
        if "maxFailedIndexes" in spec:
            self.need("backoffLimitPerIndex" in spec, w,
                      "maxFailedIndexes requires backoffLimitPerIndex")
            if is_int(completions) and is_int(spec["maxFailedIndexes"]):
                self.need(spec["maxFailedIndexes"] <= completions, w,
                          "maxFailedIndexes must not exceed completions")
        if "podReplacementPolicy" in spec:
            self.need(spec["podReplacementPolicy"] in ("TerminatingOrFailed", "Failed"), w,
                      "podReplacementPolicy must be TerminatingOrFailed or Failed")
        policy = self.mapping(spec, "podFailurePolicy", w, required=False)
        if policy:
            self.need(restart == "Never", w, "podFailurePolicy requires restartPolicy: Never")
            self.need(spec.get("podReplacementPolicy", "Failed") == "Failed", w,
                      "with podFailurePolicy, podReplacementPolicy can only be Failed")
            names = {c.get("name") for c in pod.get("containers", []) if isinstance(c, dict)}
            rules = policy.get("rules")
            if self.need(isinstance(rules, list) and rules, w, "podFailurePolicy.rules must be a list"):
                for n, rule in enumerate(rules):
                    self.failure_rule(rule, f"{w}.podFailurePolicy.rules[{n}]", spec, names)
        self.pod_spec(pod, w + ".template.spec", claims, {"Never", "OnFailure"})

    def failure_rule(self, rule, w, spec, containers):
        if not self.need(isinstance(rule, dict), w, "must be a mapping"):
            return
        action = rule.get("action")
        self.need(action in ("FailJob", "FailIndex", "Ignore", "Count"), w,
                  f"action {action!r} must be FailJob, FailIndex, Ignore or Count")
        if action == "FailIndex":
            self.need("backoffLimitPerIndex" in spec, w, "FailIndex requires backoffLimitPerIndex")
        codes, conditions = rule.get("onExitCodes"), rule.get("onPodConditions")
        self.need((codes is None) != (conditions is None), w,
                  "exactly one of onExitCodes and onPodConditions")
        if codes is not None and self.need(isinstance(codes, dict), w, "onExitCodes must be a mapping"):
            operator, values = codes.get("operator"), codes.get("values")
            self.need(operator in ("In", "NotIn"), w, "onExitCodes.operator must be In or NotIn")
            self.need(isinstance(values, list) and values and all(is_int(v) for v in values), w,
                      "onExitCodes.values must be a list of integers")
            if operator == "In" and isinstance(values, list):
                self.need(0 not in values, w, "onExitCodes In must not list 0")
            if "containerName" in codes:
                self.need(codes["containerName"] in containers, w,
                          f"onExitCodes.containerName {codes['containerName']!r} is no container")
        if conditions is not None:
            self.need(isinstance(conditions, list) and conditions and
                      all(isinstance(c, dict) and isinstance(c.get("type"), str) for c in conditions),
                      w, "onPodConditions must be a list of {type: ...}")

    def pod_spec(self, pod, w, claims, restarts):
        restart = pod.get("restartPolicy", "Always")
        self.need(restart in restarts, w,
                  f"restartPolicy {restart!r} must be one of {sorted(restarts)}")
        volumes = pod.get("volumes", [])
        names = set()
        if self.need(isinstance(volumes, list), w, "volumes must be a list"):
            for n, v in enumerate(volumes):
                vw = f"{w}.volumes[{n}]"
                if not self.need(isinstance(v, dict), vw, "must be a mapping"):
                    continue
                self.name(v.get("name"), vw + ".name", label=True)
                self.need(v.get("name") not in names, vw, f"volume {v.get('name')!r} twice")
                names.add(v.get("name"))
                if "persistentVolumeClaim" in v:
                    claim = (v["persistentVolumeClaim"] or {}).get("claimName")
                    self.need(isinstance(claim, str), vw,
                              "persistentVolumeClaim.claimName (a string) is required")
                    self.need(claim in claims, vw,
                              f"claimName {claim!r} names no PersistentVolumeClaim in this file")
        containers = pod.get("containers")
        if not self.need(isinstance(containers, list) and containers, w,
                         "containers must be a non-empty list"):
            return
        seen = set()
        for n, c in enumerate(containers):
            cw = f"{w}.containers[{n}]"
            if not self.need(isinstance(c, dict), cw, "must be a mapping"):
                continue
            self.name(c.get("name"), cw + ".name", label=True)
            self.need(c.get("name") not in seen, cw, f"container {c.get('name')!r} twice")
            seen.add(c.get("name"))
            self.need(isinstance(c.get("image"), str) and c.get("image"), cw,
                      "image (a string) is required")
            self.need(is_str_list(c.get("command")) and c.get("command"), cw,
                      "command (a list of strings) is required")
            if "args" in c:
                self.need(is_str_list(c["args"]), cw, "args must be a list of strings")
            for e in c.get("env", []) or []:
                self.need(isinstance(e, dict) and isinstance(e.get("name"), str), cw,
                          f"env entry {e!r} needs a name")
                if isinstance(e, dict) and "value" in e:
                    self.need(isinstance(e["value"], str), cw,
                              f"env {e.get('name')}: value must be a string "
                              f"(quote it: \"{e['value']}\")")
            resources = c.get("resources", {}) or {}
            for part in ("limits", "requests"):
                for key, value in (resources.get(part) or {}).items():
                    self.need(is_quantity(value), cw,
                              f"resources.{part}.{key} {value!r} is not a quantity")
            for m in c.get("volumeMounts", []) or []:
                self.need(isinstance(m, dict) and m.get("name") in names, cw,
                          f"volumeMount {m.get('name') if isinstance(m, dict) else m!r} "
                          "names no volume")
                self.need(isinstance(m, dict) and str(m.get("mountPath", "")).startswith("/"), cw,
                          "volumeMount.mountPath must be an absolute path")


def schema_problems(docs, source=MANIFEST):
    schema = Schema(source)
    schema.documents(docs)
    return schema.found


def check_kubernetes(binary):
    docs = load_all(MANIFEST)
    problems.extend(schema_problems(docs))
    jobs = [d for d in docs if isinstance(d, dict) and d.get("kind") == "Job"]
    if not check(len(jobs) == 1, f"{MANIFEST}: one Job is expected"):
        return
    job = jobs[0]
    spec = job.get("spec", {})
    check(spec.get("completionMode") == "Indexed",
          f"{MANIFEST}: completionMode must be Indexed (JOB_COMPLETION_INDEX)")
    check("backoffLimitPerIndex" in spec and "maxFailedIndexes" in spec,
          f"{MANIFEST}: retry each shard on its own (backoffLimitPerIndex, maxFailedIndexes)")
    pod = spec.get("template", {}).get("spec", {})
    containers = pod.get("containers", [])
    if not check(len(containers) == 1, f"{MANIFEST}: one container in the Job"):
        return
    c = containers[0]
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    check(env.get("KB_SHARD_COUNT") == str(spec.get("completions")),
          f"{MANIFEST}: KB_SHARD_COUNT {env.get('KB_SHARD_COUNT')} "
          f"must equal completions {spec.get('completions')}")
    check(spec.get("parallelism", 1) <= spec.get("completions", 1),
          f"{MANIFEST}: parallelism beyond completions runs nothing more")
    check("nvidia.com/gpu" in c.get("resources", {}).get("limits", {}),
          f"{MANIFEST}: each pod needs a GPU")
    command = " ".join(c.get("command", []) + c.get("args", []))
    check("$JOB_COMPLETION_INDEX" in command,
          f"{MANIFEST}: each pod must write its own results directory")
    # Results go to a ReadWriteMany claim every pod mounts.
    rwx = {d["metadata"]["name"] for d in docs if d.get("kind") == "PersistentVolumeClaim"
           and "ReadWriteMany" in d.get("spec", {}).get("accessModes", [])}
    results = [v for v in pod.get("volumes", [])
               if (v.get("persistentVolumeClaim") or {}).get("claimName") in rwx]
    writable = [m for m in c.get("volumeMounts", [])
                if not m.get("readOnly") and m.get("name") in {v["name"] for v in results}]
    check(writable, f"{MANIFEST}: the shards must write to a ReadWriteMany results volume")
    check_flags(binary, MANIFEST, kernel_bench_lines(command))


# --- Slurm and the scripts ---------------------------------------------------

def check_slurm(binary):
    text = read(SLURM)
    array = re.search(r"^#SBATCH --array=(\S+)", text, re.M)
    check(array and re.fullmatch(r"\d+-\d+(:\d+)?(%\d+)?", array.group(1)),
          f"{SLURM}: #SBATCH --array must be a regular range (a sparse one is refused)")
    check(re.search(r"^#SBATCH --gres=gpu", text, re.M),
          f"{SLURM}: each task needs a GPU (--gres=gpu:1)")
    check("SLURM_ARRAY_TASK_ID" in text,
          f"{SLURM}: each task must write its own results directory")
    check("--parsable" in text and "%%;*" in text,
          f"{SLURM}: sbatch --parsable may print ID;CLUSTER: take the part before ;")
    check("--dependency=\"afterany:" in text or "--dependency=afterany:" in text,
          f"{SLURM}: the gate must depend on the array with afterany")


def check_scripts(binary):
    for name in SCRIPTS:
        path = os.path.join(HERE, name)
        syntax = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
        check(syntax.returncode == 0, f"{name}: bash -n: {syntax.stderr.strip()}")
        check(os.access(path, os.X_OK), f"{name}: must be executable")
        check_flags(binary, name, kernel_bench_lines(read(name)))


def check_containerfile(binary):
    text = read(CONTAINERFILE)
    stages = re.findall(r"^FROM\s+(\S+)\s+AS\s+(\S+)", text, re.M | re.I)
    names = {n for _, n in stages}
    check({"build", "runtime"} <= names,
          f"{CONTAINERFILE}: stages build and runtime are required (got {sorted(names)})")
    check(re.search(r"^ARG CUDA_IMAGE=", text, re.M) and
          re.search(r"^COPY --from=cuda ", text, re.M),
          f"{CONTAINERFILE}: the CUDA toolkit must come from the CUDA_IMAGE argument's image")
    check("scripts/setup.sh" in text,
          f"{CONTAINERFILE}: install the packages scripts/setup.sh lists")
    check("--preset runtime-only" in text,
          f"{CONTAINERFILE}: the runtime image needs the runtime-only kernel-bench")
    for src in re.findall(r"examples/ci/([\w.-]+\.sh)", text):
        check(os.path.exists(os.path.join(HERE, src)), f"{CONTAINERFILE}: no examples/ci/{src}")
    check_flags(binary, CONTAINERFILE, kernel_bench_lines(text))


# --- external linters, where installed --------------------------------------

YAMLLINT_CONFIG = ("{extends: default, rules: {line-length: {max: 120}, "
                   "truthy: {check-keys: false}, document-start: disable}}")
EXPRESSION = re.compile(r"\$\{\{.*?\}\}", re.S)


def tool(name):
    path = shutil.which(name)
    if path is None:
        tools_skipped.append(name)
    return path


def run_tool(argv, source, stdin=None):
    run = subprocess.run(argv, capture_output=True, text=True, input=stdin)
    if run.returncode != 0:
        out = (run.stdout + run.stderr).strip()
        problems.append(f"{source}: {os.path.basename(argv[0])} failed:\n{out}")
    return run.returncode == 0


def workflow_run_steps():
    """(where, shell, script) of each `run:` step, with ${{ }} replaced by a
    word as the runner would substitute one (as actionlint does)."""
    wf = load(WORKFLOW)
    default = (wf.get("defaults") or {}).get("run", {}).get("shell", "bash")
    for job_name, job in (wf.get("jobs") or {}).items():
        job_default = (job.get("defaults") or {}).get("run", {}).get("shell", default)
        for n, step in enumerate(job.get("steps", [])):
            if "run" in step:
                shell = step.get("shell", job_default).split()[0]
                script = EXPRESSION.sub("KB_EXPRESSION", step["run"])
                yield f"{WORKFLOW} jobs.{job_name}.steps[{n}]", shell, script


def containerfile_runs():
    """(where, shell, script) of each shell-form RUN of the Containerfile,
    with the shell its stage's SHELL gives it."""
    stage_shell, shell, lines, start, current = {}, "sh", [], 0, None
    logical = []
    for number, line in enumerate(read(CONTAINERFILE).splitlines(), 1):
        if lines and line.lstrip().startswith("#"):
            continue  # a comment inside a continued instruction
        if not lines:
            start = number
        lines.append(line)
        if line.endswith("\\"):
            continue
        logical.append((start, "\n".join(lines)))
        lines = []
    for number, instruction in logical:
        m = re.match(r"\s*(\w+)\s+(.*)", instruction, re.S)
        if not m:
            continue
        word, rest = m.group(1).upper(), m.group(2)
        if word == "FROM":
            parts = rest.split()
            shell = stage_shell.get(parts[0], "sh")
            if len(parts) >= 3 and parts[1].upper() == "AS":
                stage_shell[parts[2]] = shell
                current = parts[2]
            else:
                current = None
        elif word == "SHELL":
            argv = yaml.safe_load(rest)
            shell = os.path.basename(argv[0])
            if current:
                stage_shell[current] = shell
        elif word == "RUN" and not rest.lstrip().startswith("["):
            script = re.sub(r"\\\n", "\n", rest)
            yield f"{CONTAINERFILE}:{number} RUN", shell, script


def job_scripts():
    for doc in load_all(MANIFEST):
        spec = (doc or {}).get("spec", {})
        pod = spec.get("template", {}).get("spec", spec)
        for c in pod.get("containers", []) or []:
            argv = c.get("command", []) + c.get("args", [])
            if len(argv) >= 3 and argv[0] in ("/bin/sh", "sh", "/bin/bash", "bash") and argv[1] == "-c":
                yield (f"{MANIFEST} {doc.get('kind')} {doc['metadata']['name']} "
                       f"container {c.get('name')}"), os.path.basename(argv[0]), argv[2]


def shellcheck_snippet(shellcheck, where, shell, script):
    if shell not in ("bash", "sh", "dash"):
        return True
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write(script + "\n")
    try:
        return run_tool([shellcheck, "--shell=" + shell, "--format=gcc", f.name], where)
    finally:
        os.unlink(f.name)


def run_linters():
    actionlint = tool("actionlint")
    if actionlint:
        run_tool([actionlint, "-no-color", os.path.join(HERE, WORKFLOW)], WORKFLOW)
        tools_ran.append(f"actionlint ({WORKFLOW})")
    yamllint = tool("yamllint")
    if yamllint:
        files = [WORKFLOW, MANIFEST]
        run_tool([yamllint, "--strict", "-f", "parsable", "-d", YAMLLINT_CONFIG] +
                 [os.path.join(HERE, f) for f in files], "yamllint")
        tools_ran.append(f"yamllint ({len(files)} files)")
    shellcheck = tool("shellcheck")
    if shellcheck:
        run_tool([shellcheck, "--format=gcc", "-x"] + [os.path.join(HERE, s) for s in SCRIPTS],
                 "shellcheck")
        snippets = list(workflow_run_steps()) + list(job_scripts()) + list(containerfile_runs())
        for where, shell, script in snippets:
            shellcheck_snippet(shellcheck, where, shell, script)
        tools_ran.append(f"shellcheck ({len(SCRIPTS)} scripts, {len(snippets)} snippets: "
                         "run steps, the Job's sh -c, Containerfile RUNs)")


# --- the self-test: planted faults must be caught -----------------------------

def self_test(check_clean=True):
    docs = load_all(MANIFEST)
    failures = []

    def planted(what, keyword, mutate):
        bad = copy.deepcopy(docs)
        try:
            mutate(bad)
        except (KeyError, IndexError, StopIteration, TypeError, AttributeError) as e:
            failures.append(f"self-test: could not plant {what} in {MANIFEST} ({e!r})")
            return
        found = schema_problems(bad, f"[planted: {what}]")
        if not any(keyword in p for p in found):
            failures.append(f"self-test: the schema check missed: {what} "
                            f"(expected a problem naming {keyword!r}; got {found})")

    def job(d):
        return next(x for x in d if x.get("kind") == "Job")

    def pvc(d):
        return next(x for x in d if x.get("kind") == "PersistentVolumeClaim")

    def container(d):
        return job(d)["spec"]["template"]["spec"]["containers"][0]

    clean = schema_problems(docs) if check_clean else []
    if clean:
        failures.append(f"self-test: {MANIFEST} itself has schema problems: {clean}")
    planted("backoffLimitPerIndex without completionMode", "completionMode",
            lambda d: job(d)["spec"].pop("completionMode", None))
    planted("backoffLimitPerIndex with completionMode NonIndexed", "backoffLimitPerIndex",
            lambda d: job(d)["spec"].update(completionMode="NonIndexed"))
    planted("restartPolicy Always in a Job", "restartPolicy",
            lambda d: job(d)["spec"]["template"]["spec"].update(restartPolicy="Always"))
    planted("a claim no PVC defines", "claimName",
            lambda d: job(d)["spec"]["template"]["spec"]["volumes"][-1]
            ["persistentVolumeClaim"].update(claimName="nowhere"))
    planted("a PVC that is not ReadWriteMany", "ReadWriteMany",
            lambda d: pvc(d)["spec"].update(accessModes=["ReadWriteOnce"]))
    planted("a PVC without a storage request", "storage",
            lambda d: pvc(d)["spec"]["resources"]["requests"].pop("storage", None))
    planted("a container without an image", "image", lambda d: container(d).pop("image", None))
    planted("a container without a command", "command", lambda d: container(d).pop("command", None))
    planted("an env value that is a number", "value must be a string",
            lambda d: container(d)["env"][0].update(value=3))
    planted("completions as a string", "completions",
            lambda d: job(d)["spec"].update(completions="3"))
    planted("a Job without metadata.name", "metadata.name",
            lambda d: job(d)["metadata"].pop("name", None))
    planted("FailIndex without backoffLimitPerIndex", "FailIndex",
            lambda d: job(d)["spec"].pop("backoffLimitPerIndex", None))
    planted("a mount of no volume", "names no volume",
            lambda d: container(d)["volumeMounts"][0].update(name="nothing"))
    planted("apiVersion missing", "apiVersion", lambda d: job(d).pop("apiVersion", None))

    shellcheck = shutil.which("shellcheck")
    if shellcheck:
        saved = list(problems)
        ok = shellcheck_snippet(shellcheck, "[planted run step]", "bash",
                                'dir=$1\nrm -rf $dir/*\n')
        del problems[:]
        problems.extend(saved)
        if ok:
            failures.append("self-test: shellcheck passed a planted unquoted `rm -rf $dir/*`")
    problems.extend(failures)
    return len(failures)


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        self_test()
    elif len(args) == 1 and not args[0].startswith("-"):
        binary = args[0]
        check_github(binary)
        check_kubernetes(binary)
        check_slurm(binary)
        check_scripts(binary)
        check_containerfile(binary)
        run_linters()
        self_test(check_clean=False)  # check_kubernetes reported the file's own
    else:
        print(__doc__)
        return 2
    for p in problems:
        print(p)
    if tools_ran:
        print("ran: " + "; ".join(tools_ran))
    if tools_skipped:
        print("skipped (not installed): " + ", ".join(tools_skipped))
    print(f"{len(problems)} problem(s) in examples/ci")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
