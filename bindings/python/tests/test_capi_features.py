"""What the Python binding gained on the C API, that Go and Lua had:
Entities.extend (charter_entities_extend), Engine.authorize_json
(charter_request_from_json), EngineHandle.swap_bundle, c_api_version, and
Error.detail (charter_error_detail)."""

import json
import os
import subprocess

import pytest

import charter
from conftest import ENTITIES, GOVERNANCE, POLICIES, SCHEMA

TASK = """[{"uid": {"type": "Task", "id": "t9"}, "attrs": {"owner": {"__entity": {"type": "User", "id": "alice"}}},
           "parents": [{"type": "Team", "id": "ml"}]}]"""


def test_c_api_version():
    assert charter.c_api_version() == 4


def test_entities_extend(engine, entities):
    extended = entities.extend(TASK)
    assert isinstance(extended, charter.Entities)
    assert (len(entities), len(extended)) == (3, 4)
    assert 'Task::"t9"' in extended and 'Task::"t9"' not in entities
    assert [str(u) for u in extended.uids()][-1] == 'Task::"t9"'
    # The request's entity names the base's as parents: resource in Team::"ml".
    team = charter.compile('@id("team-task") permit (principal, action, resource in Team::"ml");')
    assert team.authorize('User::"x"', 'Action::"a"', 'Task::"t9"', entities=extended).reasons == ["team-task"]
    assert team.authorize('User::"x"', 'Action::"a"', 'Task::"t9"', entities=entities).reasons == []
    with pytest.raises(charter.EntitiesError):
        entities.extend('[{"uid": {"type": "User", "id": "alice"}, "attrs": {}, "parents": []}]')  # already there
    with pytest.raises(charter.EntitiesError):
        entities.extend('{"not": "an array"}')
    with pytest.raises(TypeError, match="^text: expected str, got int$"):
        entities.extend(3)


def test_extend_keeps_the_schema():
    schema = charter.Schema(SCHEMA.read_text())
    engine = charter.compile((GOVERNANCE / "policies.cedar").read_text(), schema)
    base = charter.Entities.from_json((GOVERNANCE / "entities.json").read_text(), schema)
    extended = base.extend("[]")
    assert len(extended) == len(base)
    request = json.loads((GOVERNANCE / "requests.json").read_text())[0]
    args = (request["principal"], request["action"], request["resource"], request.get("context"))
    assert engine.authorize(*args, entities=extended) == engine.authorize(*args, entities=base)


def test_authorize_json(engine, entities):
    text = json.dumps({"principal": 'User::"alice"', "action": 'Action::"submitTask"', "resource": 'Task::"t"',
                       "context": {"gpus": 2}})
    d = engine.authorize_json(text, entities)
    assert d == engine.authorize('User::"alice"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 2}, entities)
    assert d.reasons == ["ml-submit"]
    with pytest.raises(charter.RequestError):
        engine.authorize_json('{"principal": "User::alice"}', entities)
    # A typed engine reads it with its schema.
    schema = charter.Schema(SCHEMA.read_text())
    typed = charter.compile((GOVERNANCE / "policies.cedar").read_text(), schema)
    store = charter.Entities.from_json((GOVERNANCE / "entities.json").read_text(), schema)
    for request in json.loads((GOVERNANCE / "requests.json").read_text()):
        got = typed.authorize_json(json.dumps(request), store)
        want = typed.authorize(request["principal"], request["action"], request["resource"], request.get("context"),
                               store)
        assert got == want
    handle = charter.EngineHandle(engine)
    assert handle.authorize_json(text, entities) == d


def test_swap_bundle(tmp_path, entities):
    handle = charter.EngineHandle(charter.compile('@id("v1") permit (principal, action, resource);'))
    path = tmp_path / "v2.bundle"
    path.write_bytes(charter.build('@id("v2") forbid (principal, action, resource);'))
    handle.swap_bundle(path)
    assert handle.generation == 2
    assert handle.authorize('U::"u"', 'Action::"a"', 'R::"r"').reasons == ["v2"]
    handle.swap_bundle(charter.build(POLICIES))
    assert handle.generation == 3 and handle.engine.policy_ids == ["ml-submit", "suspended", "needs-mfa"]
    with pytest.raises(charter.BundleError):
        handle.swap_bundle(b"not a bundle")
    assert handle.generation == 3  # a bad bundle leaves the current engine


def test_error_detail_renders_the_fault():
    with pytest.raises(charter.PolicyError) as info:
        charter.compile("permit (principal, action, resource)\nwhen { 1 + };")
    e = info.value
    assert e.detail != str(e)
    assert "when { 1 + };" in e.detail and "^" in e.detail  # the source line and its underline
    with pytest.raises(charter.EntitiesError) as info:
        charter.Entities.from_json("[")
    assert info.value.detail.startswith("entities.json:1:")
    assert info.value.status == "invalid_argument"  # charter_status_name
    with pytest.raises(charter.BundleError) as info:
        charter.load_bundle("/nonexistent/charter.bundle")
    assert info.value.status == "not_found"


def test_decision_json_is_charter_authorizes(tmp_path):
    cli = os.environ.get("CHARTER_CLI")
    assert cli, "CHARTER_CLI names the charter command (ctest sets it)"
    files = [GOVERNANCE / "policies.cedar", SCHEMA, GOVERNANCE / "entities.json", GOVERNANCE / "requests.json"]
    out = subprocess.run([cli, "authorize", "--policies", str(files[0]), "--schema", str(files[1]), "--entities",
                          str(files[2]), "--requests", str(files[3]), "--format", "jsonl"],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    schema = charter.Schema(SCHEMA.read_text())
    engine = charter.compile(files[0].read_text(), schema)
    store = charter.Entities.from_json(files[2].read_text(), schema)
    requests = json.loads(files[3].read_text())
    assert len(out) == len(requests)
    for request, line in zip(requests, out):
        d = engine.authorize(request["principal"], request["action"], request["resource"], request.get("context"),
                             store)
        want = json.loads(line)  # the command adds each error's place in the policy text
        want = {"decision": want["decision"], "reasons": want["reasons"],
                "errors": [{"policy": e["policy"], "message": e["message"]} for e in want["errors"]]}
        assert json.loads(d.to_json()) == want
    # Escapes as Charter writes them: quotes, backslashes and control characters.
    odd = charter.compile('@id("q\\"u\\\\o\\nte") permit (principal, action, resource);')
    text = odd.authorize('U::"u"', 'Action::"a"', 'R::"r"').to_json()
    assert text == '{"decision":"allow","reasons":["q\\"u\\\\o\\nte"],"errors":[]}'
