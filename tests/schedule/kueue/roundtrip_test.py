#!/usr/bin/env python3
"""Kueue's objects through the language and back, on Kueue's own manifests.

For each case (one or a few files of upstream/, or roundtrip/kubectl-list.yaml):

  charter import kueue FILES -o k.charter
  charter build --policies k.charter -o k.bundle
  charter export kueue --bundle k.bundle

and checks that
  - k.charter is what `charter fmt` leaves, and names each object it declares
    in a comment `// from FILE:LINE (Kind name)` at the object's line;
  - `export --policies k.charter`, and `export --state` of `import --format
    state`, write the same text as `export --bundle`;
  - the export gives back the input's objects, compared as parsed YAML: every
    field of an input object is in the exported one with the same value
    (quantities compared as numbers), unless a note of the import named that
    field as not in the model; every field the export adds is one of Kueue's
    defaults, with its default value; no object is added or lost;
  - every object of a kind Charter does not model is named by a note.

And HyperPod's walkthrough document: `import hyperpod` writes declarations as
fmt leaves them, naming each ComputeQuota, and `export hyperpod --bundle` of
their build writes what `export hyperpod --state` of `--format state` writes.

Usage: roundtrip_test.py CHARTER [WORKDIR]. Exit 0 when every case holds.
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
from fractions import Fraction

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
KUEUE = "kueue.x-k8s.io"
CONFIG = "config.kueue.x-k8s.io"
MODELED = {"ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue", "WorkloadPriorityClass"}

# Files imported together: an upstream file that names a flavor it does not
# declare is read with the one that declares it, as on a cluster.
TOGETHER = {
    "upstream/site-content/cohort-quota.yaml": ["upstream/examples/admin/resource-flavor-empty.yaml"],
}

# Kueue's defaults (its API's defaulting and the CRDs' `default`s), by kind:
# the value a field has when it is left out. `{}` for namespaceSelector: the
# model admits every namespace (a null selector would admit none).
DEFAULTS = {
    "ClusterQueue": {
        ("spec", "queueingStrategy"): "BestEffortFIFO",
        ("spec", "namespaceSelector"): {},
        ("spec", "preemption"): {},
        ("spec", "preemption", "withinClusterQueue"): "Never",
        ("spec", "preemption", "reclaimWithinCohort"): "Never",
        ("spec", "preemption", "borrowWithinCohort"): {},
        ("spec", "preemption", "borrowWithinCohort", "policy"): "Never",
        ("spec", "flavorFungibility"): {},
        ("spec", "flavorFungibility", "whenCanBorrow"): "MayStopSearch",
        ("spec", "flavorFungibility", "whenCanPreempt"): "TryNextFlavor",
        ("spec", "stopPolicy"): "None",
        ("spec", "fairSharing"): {},
        ("spec", "fairSharing", "weight"): 1,
        ("spec", "resourceGroups"): [],
    },
    "Cohort": {
        ("spec",): {},
        ("spec", "fairSharing"): {},
        ("spec", "fairSharing", "weight"): 1,
        ("spec", "resourceGroups"): [],
    },
    "LocalQueue": {
        ("spec", "stopPolicy"): "None",
    },
    "ResourceFlavor": {
        ("spec",): {},
    },
    "WorkloadPriorityClass": {},
    "Configuration": {
        ("fairSharing",): {},
        ("fairSharing", "enable"): False,
        ("fairSharing", "preemptionStrategies"): ["LessThanOrEqualToFinalShare", "LessThanInitialShare"],
    },
}
# v1beta1's names that Kueue converts: the export writes what they mean.
SYNONYMS = {("whenCanBorrow", "Borrow"): "MayStopSearch", ("whenCanPreempt", "Preempt"): "MayStopSearch"}
QUANTITIES = {"nominalQuota", "borrowingLimit", "lendingLimit", "weight"}
SUFFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
            "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1,
            "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}

failures = []


def fail(case, message):
    failures.append(f"{case}: {message}")


def quantity(v):
    if isinstance(v, bool):
        raise ValueError(v)
    if isinstance(v, (int, float)):
        return Fraction(v)
    m = re.fullmatch(r"([+-]?[0-9.]+)(?:[eE]([+-]?[0-9]+)|([A-Za-z]*))", str(v))
    if not m or m.group(3) not in SUFFIXES and m.group(2) is None:
        raise ValueError(v)
    n = Fraction(m.group(1))
    if m.group(2) is not None:
        return n * Fraction(10) ** int(m.group(2))
    return n * SUFFIXES[m.group(3)]


def kind_of(obj):
    group, _, version = str(obj.get("apiVersion", "")).rpartition("/")
    return group, version, obj.get("kind")


def flatten(docs):
    """The objects of documents: every item of a `kind: List` (or a typed list)."""
    out = []
    for d in docs:
        if not isinstance(d, dict):
            continue
        if str(d.get("kind", "")).endswith("List") and isinstance(d.get("items"), list):
            out.extend(i for i in d["items"] if isinstance(i, dict))
        else:
            out.append(d)
    return out


def manager_configuration(obj):
    """The Configuration a ConfigMap holds for Kueue's manager, or None."""
    if obj.get("apiVersion") != "v1" or obj.get("kind") != "ConfigMap":
        return None
    for v in (obj.get("data") or {}).values():
        if isinstance(v, str) and CONFIG in v:
            return yaml.safe_load(v)
    return None


def label(obj):
    _, _, kind = kind_of(obj)
    meta = obj.get("metadata") or {}
    if kind == "Configuration":
        return "Configuration"
    ns = meta.get("namespace")
    return f"{kind} {ns + '/' if ns else ''}{meta.get('name', '')}"


def key(obj):
    return label(obj)


def object_lines(path):
    """label -> line of each object in a file (1-based), as the importer counts."""
    with open(path) as f:
        nodes = list(yaml.compose_all(f))
    lines = {}
    for doc in nodes:
        if not isinstance(doc, yaml.MappingNode):
            continue
        items = [doc]
        for k, v in doc.value:
            if k.value == "items" and isinstance(v, yaml.SequenceNode):
                items = list(v.value)
        for n in items:
            obj = yaml.safe_load(yaml.serialize(n))
            lines[label(obj)] = n.start_mark.line + 1
    return lines


def noted_fields(notes):
    """label -> set of field paths a note says are not in the model."""
    out = {}
    for line in notes:
        m = re.match(r"charter: (?:note|warning): [^:]+:\d+:\d+: ([A-Za-z]+(?: [^:]+)?): (.*)$", line)
        if not m:
            continue
        for field in re.findall(r"`([A-Za-z.]+)`", m.group(2)):
            out.setdefault(m.group(1), set()).add(tuple(field.split(".")))
    return out


def is_default(kind, path, value):
    table = DEFAULTS.get(kind, {})
    if path not in table:
        return False
    want = table[path]
    if isinstance(value, dict):
        return all(is_default(kind, path + (k,), v) for k, v in value.items())
    if path[-1] in QUANTITIES:
        return quantity(value) == quantity(want)
    return value == want


def compare(case, what, kind, path, a, b, exempt):
    """a (the input) against b (the export)."""
    if path in exempt:
        return
    if path and path[-1] in QUANTITIES and not isinstance(a, (dict, list)):
        try:
            if quantity(a) != quantity(b):
                fail(case, f"{what}: {'.'.join(path)}: {a!r} came back as {b!r}")
        except (ValueError, TypeError):
            fail(case, f"{what}: {'.'.join(path)}: {a!r} came back as {b!r}")
        return
    if isinstance(a, dict):
        if not isinstance(b, dict):
            fail(case, f"{what}: {'.'.join(path)}: a map came back as {b!r}")
            return
        for k, v in a.items():
            if path + (k,) in exempt:
                continue
            if k not in b:
                fail(case, f"{what}: {'.'.join(path + (k,))} is lost (no note names it)")
                continue
            compare(case, what, kind, path + (k,), v, b[k], exempt)
        for k, v in b.items():
            if k not in a and not is_default(kind, path + (k,), v):
                fail(case, f"{what}: {'.'.join(path + (k,))}: {v!r} is added and is not Kueue's default")
        return
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            fail(case, f"{what}: {'.'.join(path)}: {a!r} came back as {b!r}")
            return
        for x, y in zip(a, b):
            compare(case, what, kind, path, x, y, exempt)
        return
    if path and SYNONYMS.get((path[-1], a)) == b:
        return
    if a != b and str(a) != str(b):
        fail(case, f"{what}: {'.'.join(path)}: {a!r} came back as {b!r}")


def run(args, case, cwd, expect=0):
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=60)
    if p.returncode != expect:
        fail(case, f"`{' '.join(args[1:])}` exited {p.returncode}: {p.stderr.strip()}")
    return p


def check_case(charter, files, work):
    case = " + ".join(files)
    tag = re.sub(r"[^A-Za-z0-9]+", "-", files[0])
    k_charter = os.path.join(work, tag + ".charter")
    k_bundle = os.path.join(work, tag + ".bundle")
    k_state = os.path.join(work, tag + ".json")
    p = run([charter, "import", "kueue", *files, "-o", k_charter], case, HERE)
    if p.returncode != 0:
        return
    notes = [l for l in p.stderr.splitlines() if l]
    for l in notes:
        if not l.startswith(("charter: note: ", "charter: warning: ")):
            fail(case, f"stderr line is not a note: {l}")
    with open(k_charter) as f:
        text = f.read()
    fmt = run([charter, "fmt", k_charter], case, HERE)
    if fmt.returncode == 0 and fmt.stdout != text:
        fail(case, "`charter fmt` changes what `import kueue` wrote")

    # Inputs, and the comment naming each declared object at its line.
    inputs, skipped, versions = {}, [], set()
    comments = set(re.findall(r"^ *// from (\S+):(\d+) \((.*)\)$", text, re.M))
    for path in files:
        with open(os.path.join(HERE, path)) as f:
            objects = flatten(yaml.safe_load_all(f))
        lines = object_lines(os.path.join(HERE, path))
        for o in objects:
            inner = manager_configuration(o)
            in_config_map = inner is not None
            if in_config_map:
                lines[label(inner)] = lines[label(o)]
                o = inner
            group, version, kind = kind_of(o)
            if group == KUEUE:
                versions.add(version)
            if (group == KUEUE and kind in MODELED) or (group == CONFIG and kind == "Configuration"):
                inputs[key(o)] = o
                declares = kind != "Configuration" or (o.get("fairSharing") or {}).get("enable", True) \
                    and "fairSharing" in o
                if in_config_map:
                    # At the Configuration's line inside the ConfigMap's data.
                    if declares and not any(c[0] == path and int(c[1]) > lines[label(o)] and c[2] == label(o)
                                            for c in comments):
                        fail(case, f"no `// from {path}:N (Configuration)` in the declarations")
                elif declares and (path, str(lines[label(o)]), label(o)) not in comments:
                    fail(case, f"no `// from {path}:{lines[label(o)]} ({label(o)})` in the declarations:\n{text}")
            else:
                skipped.append(label(o))
                if not any(f"{path}:{lines[label(o)]}:" in n and label(o) in n and "skipped" in n for n in notes):
                    fail(case, f"{label(o)} of {path} is dropped without a note")

    # Build, export three ways, in the inputs' API version.
    if run([charter, "build", "--policies", k_charter, "-o", k_bundle], case, HERE).returncode != 0:
        return
    version = ["--api-version", "v1beta1"] if versions == {"v1beta1"} else []
    out = run([charter, "export", "kueue", "--bundle", k_bundle, *version], case, HERE)
    by_policies = run([charter, "export", "kueue", "--policies", k_charter, *version], case, HERE)
    if by_policies.stdout != out.stdout:
        fail(case, "export --policies differs from export --bundle")
    run([charter, "import", "kueue", *files, "--format", "state", "-o", k_state], case, HERE)
    by_state = run([charter, "export", "kueue", "--state", k_state, *version], case, HERE)
    if by_state.stdout != out.stdout:
        fail(case, "export --state of import --format state differs from export --bundle")

    exported = {}
    for o in flatten(yaml.safe_load_all(out.stdout)):
        inner = manager_configuration(o)
        exported[key(inner if inner is not None else o)] = inner if inner is not None else o
    exempt_by_object = noted_fields(notes)
    for k, a in inputs.items():
        if k not in exported:
            fail(case, f"{k} is not exported")
            continue
        b = exported[k]
        _, _, kind = kind_of(a)
        exempt = exempt_by_object.get(k, set())
        # What an object is, not how it was written: the API version may
        # differ (v1beta1 in, v1beta2 out); names and namespaces may not.
        for m in ("name", "namespace"):
            if (a.get("metadata") or {}).get(m) != (b.get("metadata") or {}).get(m):
                fail(case, f"{k}: metadata.{m} came back as {(b.get('metadata') or {}).get(m)!r}")
        body_a = {f: v for f, v in a.items() if f not in ("apiVersion", "kind", "metadata", "status")}
        body_b = {f: v for f, v in b.items() if f not in ("apiVersion", "kind", "metadata")}
        compare(case, k, kind, (), body_a, body_b, exempt)
    for k in exported:
        if k not in inputs and k != "Configuration":
            fail(case, f"{k} is exported but no input declares it")
    return len(inputs), len(skipped)


def check_hyperpod(charter, work):
    """HyperPod's objects: import hyperpod -> .charter (as fmt leaves it) -> build ->
    export hyperpod writes what the export of the state JSON writes."""
    case = "tests/schedule/hyperpod/hyperpod-walkthrough.json"
    source = os.path.join("..", "hyperpod", "hyperpod-walkthrough.json")
    h_charter, h_bundle, h_state = (os.path.join(work, "hyperpod" + e) for e in (".charter", ".bundle", ".json"))
    if run([charter, "import", "hyperpod", source, "-o", h_charter], case, HERE).returncode != 0:
        return
    with open(h_charter) as f:
        text = f.read()
    if run([charter, "fmt", h_charter], case, HERE).stdout != text:
        fail(case, "`charter fmt` changes what `import hyperpod` wrote")
    for team in ("team-a", "team-b"):
        if not re.search(rf"^// from {re.escape(source)}:\d+ \(ComputeQuota \S+ of team {team}\)$", text, re.M):
            fail(case, f"no comment names the ComputeQuota of {team}:\n{text}")
    run([charter, "build", "--policies", h_charter, "-o", h_bundle], case, HERE)
    run([charter, "import", "hyperpod", source, "--format", "state", "-o", h_state], case, HERE)
    a = run([charter, "export", "hyperpod", "--bundle", h_bundle], case, HERE).stdout
    b = run([charter, "export", "hyperpod", "--state", h_state], case, HERE).stdout
    if not a or a != b:
        fail(case, "export hyperpod --bundle differs from export hyperpod --state")


def main():
    charter = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="charter-roundtrip-")
    os.makedirs(work, exist_ok=True)
    upstream = []
    for root, _, names in os.walk(os.path.join(HERE, "upstream")):
        for n in names:
            rel = os.path.relpath(os.path.join(root, n), HERE)
            if n.endswith(".yaml") and not rel.startswith("upstream/crd/"):
                upstream.append(rel)
    upstream.sort()
    partners = {p for v in TOGETHER.values() for p in v}
    cases = [[f] + TOGETHER.get(f, []) for f in upstream]
    # A partner is also read alone. Then a `kubectl get -o yaml` list, and
    # Charter's own test cluster (v1beta2 YAML and JSON, v1beta1).
    cases += [["roundtrip/kubectl-list.yaml"], ["testdata/cluster.yaml"], ["testdata/cluster.json"],
              ["testdata/cluster-v1beta1.yaml"]]
    # Two cases at a time: most of the time is spent starting `charter`.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        counts = list(pool.map(lambda files: check_case(charter, files, work), cases))
    objects = sum(c[0] for c in counts if c)
    check_hyperpod(charter, work)
    assert partners <= set(upstream)
    for f in failures:
        print("FAIL:", f)
    print(f"{len(cases)} cases, {objects} objects of Kueue's given back; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
