"""The Done-when check of issue 17 for Python: this build installed into a
temporary prefix (cmake --install BUILD --prefix TMP), the package imported
from there by a python3 that sees nothing of the build tree decides every
request of examples/governance/requests.json as `charter authorize` does."""

import glob
import json
import os
import subprocess
import sys

from conftest import GOVERNANCE, SCHEMA

# Run by the installed package: decides every request three ways (one call
# each, a batch, prepared requests), with an untyped and a typed engine, and
# prints them all, with where the package and libcharter.so were loaded from.
SCRIPT = r"""
import json, sys
import charter
policies, schema, entities_path, requests_path = sys.argv[1:]
policies = open(policies).read()
schema = charter.Schema(open(schema).read())
entities = charter.Entities.from_json(open(entities_path).read(), schema)
requests = json.load(open(requests_path))
out = {"module": charter.__file__, "version": charter.version()}
for name, engine in (("untyped", charter.compile(policies)), ("typed", charter.compile(policies, schema))):
    def plain(d):
        return {"decision": d.decision, "reasons": d.reasons, "errors": [list(e) for e in d.errors]}
    out[name] = {
        "single": [plain(engine.authorize(r["principal"], r["action"], r["resource"], r.get("context"), entities))
                   for r in requests],
        "batch": [plain(d) for d in engine.authorize_batch(requests, entities)],
        "prepared": [plain(engine.authorize_request(
            engine.prepare(r["principal"], r["action"], r["resource"], r.get("context")), entities))
            for r in requests],
    }
out["libcharter"] = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libcharter.so" in line})
print(json.dumps(out))
"""


def test_installed_package_decides_as_charter_authorize(tmp_path):
    build = os.environ["CHARTER_BINARY_DIR"]
    cmake = os.environ["CHARTER_CMAKE"]
    cli = os.environ["CHARTER_CLI"]
    assert cli, "CHARTER_CLI names the charter command (ctest sets it)"
    prefix = tmp_path / "prefix"
    command = [cmake, "--install", build, "--prefix", str(prefix)]
    if os.environ.get("CHARTER_CONFIG"):
        command += ["--config", os.environ["CHARTER_CONFIG"]]
    subprocess.run(command, check=True, capture_output=True)

    sites = glob.glob(str(prefix / "lib" / "python3*" / "dist-packages"))
    assert len(sites) == 1, sites
    site = sites[0]
    # For PREFIX=/usr/local the same directory is on the interpreter's path.
    relative = os.path.relpath(site, prefix)
    assert os.path.join("/usr/local", relative) in sys.path

    files = [str(GOVERNANCE / "policies.cedar"), str(SCHEMA), str(GOVERNANCE / "entities.json"),
             str(GOVERNANCE / "requests.json")]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": site, "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run([sys.executable, "-c", SCRIPT, *files], env=env, cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["module"].startswith(site + os.sep)
    assert got["libcharter"] and all(p.startswith(str(prefix) + os.sep) for p in got["libcharter"]), got["libcharter"]

    cli_run = subprocess.run(
        [cli, "authorize", "--policies", files[0], "--entities", files[2], "--requests", files[3],
         "--schema", files[1], "--format", "json"], capture_output=True, text=True, check=True)
    expected = [{"decision": d["decision"], "reasons": d["reasons"],
                 "errors": [[e["policy"], e["message"]] for e in d["errors"]]}
                for d in json.loads(cli_run.stdout)]
    requests = json.loads((GOVERNANCE / "requests.json").read_text())
    assert len(expected) == len(requests) > 0
    assert {d["decision"] for d in expected} == {"allow", "deny"}
    for engine in ("untyped", "typed"):
        for way in ("single", "batch", "prepared"):
            assert got[engine][way] == expected, (engine, way)
