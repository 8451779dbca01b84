#!/usr/bin/env python3
"""Every object `charter export kueue` writes is valid for Kueue's CRDs.

Validates each exported object against the openAPIV3Schema of its kind's CRD
(upstream/crd/, Kueue's config/components/crd/bases) for its apiVersion,
with python3-jsonschema: `required`, `enum`, `pattern`, `type`, minimum,
maximum, lengths and item counts where the schema has them; Kubernetes'
x-kubernetes-* extensions are left out (`x-kubernetes-int-or-string` becomes
"an integer or a string", as the API server reads it), `nullable` allows
null. The manager's Configuration has no CRD: its ConfigMap is checked for
its name and key, and the Configuration inside for its apiVersion and kind.

The exports: `export kueue --policies examples/governance/scheduling.charter`
(v1beta2 and v1beta1), and `export kueue --bundle` of `import kueue` of every
manifest of upstream/ and roundtrip/ (v1beta2 and v1beta1).

Usage: crd_schema_test.py CHARTER [WORKDIR] (run from the repository's root).
"""
import os
import subprocess
import sys
import tempfile

import jsonschema
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CRD_DIR = os.path.join(HERE, "upstream", "crd")


def strip(schema):
    """An OpenAPI v3 structural schema as a JSON Schema."""
    if isinstance(schema, list):
        return [strip(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for k, v in schema.items():
        if k.startswith("x-kubernetes-") or k in ("nullable", "description", "format", "default"):
            continue
        if k in ("properties", "patternProperties", "definitions"):
            out[k] = {name: strip(s) for name, s in v.items()}
        else:
            out[k] = strip(v)
    if schema.get("x-kubernetes-int-or-string"):
        # The anyOf beside it says which; without one, either.
        if "anyOf" not in out:
            out["type"] = ["integer", "string"]
    if schema.get("nullable") and "type" in out:
        t = out["type"]
        out["type"] = (t if isinstance(t, list) else [t]) + ["null"]
    return out


def load_crds():
    """(group, version, kind) -> JSON Schema."""
    schemas = {}
    for name in sorted(os.listdir(CRD_DIR)):
        with open(os.path.join(CRD_DIR, name)) as f:
            crd = yaml.safe_load(f)
        group = crd["spec"]["group"]
        kind = crd["spec"]["names"]["kind"]
        for v in crd["spec"]["versions"]:
            if v.get("served"):
                schemas[(group, v["name"], kind)] = strip(v["schema"]["openAPIV3Schema"])
    return schemas


def main():
    charter = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="charter-crd-")
    os.makedirs(work, exist_ok=True)
    schemas = load_crds()
    kinds = {k for (_, _, k) in schemas}
    assert kinds == {"ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue", "WorkloadPriorityClass"}, kinds
    failures = []

    exports = []  # (what, command)
    for version in ("v1beta2", "v1beta1"):
        exports.append((f"governance example ({version})",
                        ["export", "kueue", "--policies", "examples/governance/scheduling.charter",
                         "--api-version", version]))
    manifests = []
    for sub in ("upstream", "roundtrip", "testdata"):
        for root, _, names in os.walk(os.path.join(HERE, sub)):
            for n in sorted(names):
                path = os.path.join(root, n)
                if n.endswith((".yaml", ".json")) and "/crd" not in root and not n.endswith(".golden.yaml") \
                        and n not in ("workloads.yaml", "hyperpod.golden.json"):
                    manifests.append(os.path.relpath(path, ROOT))
    for i, m in enumerate(sorted(manifests)):
        files = [m]
        if m.endswith("site-content/cohort-quota.yaml"):
            files.append(os.path.relpath(os.path.join(HERE, "upstream/examples/admin/resource-flavor-empty.yaml"), ROOT))
        k = os.path.join(work, f"{i}.charter")
        p = subprocess.run([charter, "import", "kueue", *files, "-o", k], cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"import kueue {m}: {p.stderr.strip()}")
            continue
        b = os.path.join(work, f"{i}.bundle")
        p = subprocess.run([charter, "build", "--policies", k, "-o", b], cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"build of import kueue {m}: {p.stderr.strip()}")
            continue
        for version in ("v1beta2", "v1beta1"):
            exports.append((f"{m} ({version})", ["export", "kueue", "--bundle", b, "--api-version", version]))

    checked = 0
    for what, args in exports:
        p = subprocess.run([charter, *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            failures.append(f"{what}: `charter {' '.join(args)}` exited {p.returncode}: {p.stderr.strip()}")
            continue
        for obj in yaml.safe_load_all(p.stdout):
            group, _, version = obj["apiVersion"].rpartition("/")
            kind = obj["kind"]
            name = (obj.get("metadata") or {}).get("name")
            if kind == "ConfigMap":
                data = obj.get("data") or {}
                if obj["apiVersion"] != "v1" or name != "kueue-manager-config" \
                        or list(data) != ["controller_manager_config.yaml"]:
                    failures.append(f"{what}: ConfigMap {name}: not Kueue's manager configuration")
                    continue
                inner = yaml.safe_load(data["controller_manager_config.yaml"])
                if inner.get("kind") != "Configuration" or \
                        inner.get("apiVersion") not in ("config.kueue.x-k8s.io/v1beta2", "config.kueue.x-k8s.io/v1beta1"):
                    failures.append(f"{what}: the ConfigMap holds no Kueue Configuration")
                checked += 1
                continue
            schema = schemas.get((group, version, kind))
            if schema is None:
                failures.append(f"{what}: {obj['apiVersion']} {kind} {name}: no CRD serves it")
                continue
            for error in jsonschema.Draft7Validator(schema).iter_errors(obj):
                at = "/".join(str(p) for p in error.absolute_path)
                failures.append(f"{what}: {kind} {name}: {at}: {error.message}")
            checked += 1
    for f in failures:
        print("FAIL:", f)
    print(f"{len(exports)} exports, {checked} objects checked against Kueue's CRDs; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
