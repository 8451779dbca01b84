"""Shared fixtures of the Python binding's tests. ctest runs them with
PYTHONPATH naming the build tree's package and CHARTER_SOURCE_DIR,
CHARTER_BINARY_DIR, CHARTER_CLI and CHARTER_CMAKE naming the rest of the
build (bindings/python/CMakeLists.txt)."""

import os
import pathlib

import pytest

import charter

SOURCE_DIR = pathlib.Path(os.environ.get("CHARTER_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))
GOVERNANCE = SOURCE_DIR / "examples" / "governance"
SCHEMA = SOURCE_DIR / "stdlib" / "governance.cedarschema"

POLICIES = """
@id("ml-submit")
permit (principal in Team::"ml", action == Action::"submitTask", resource)
when { context.gpus <= 8 };

@id("suspended")
forbid (principal, action, resource)
when { principal has suspended && principal.suspended };

@id("needs-mfa")
permit (principal, action == Action::"view", resource)
when { context.mfa };
"""

ENTITIES = """[
  {"uid": {"type": "User", "id": "alice"}, "attrs": {},
   "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "User", "id": "bob"}, "attrs": {"suspended": true},
   "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": []}
]"""


@pytest.fixture(scope="session")
def engine():
    return charter.compile(POLICIES)


@pytest.fixture(scope="session")
def entities():
    return charter.Entities.from_json(ENTITIES)


@pytest.fixture(scope="session")
def governance():
    """The governance example: (policies, schema, entities, requests) texts."""
    return ((GOVERNANCE / "policies.cedar").read_text(), SCHEMA.read_text(),
            (GOVERNANCE / "entities.json").read_text(), (GOVERNANCE / "requests.json").read_text())
