"""Queries through the Python binding: list_allowed, list_allowed_principals,
their paged iterators and residuals, on the governance example compared with
`charter query`, and bad input raising precise errors."""

import json
import os
import subprocess

import pytest

import charter
from conftest import GOVERNANCE, SCHEMA

ALICE = 'Governance::Member::"alice"'
VIEW = 'Governance::Action::"viewTask"'
TASK = "Governance::Task"


@pytest.fixture(scope="module")
def gov():
    schema = charter.Schema(SCHEMA.read_text())
    engine = charter.compile((GOVERNANCE / "policies.cedar").read_text(), schema)
    entities = charter.Entities.from_json((GOVERNANCE / "entities.json").read_text(), schema)
    return engine, entities


def cli_query(*flags):
    cli = os.environ.get("CHARTER_CLI")
    assert cli, "CHARTER_CLI names the charter command (ctest sets it)"
    return subprocess.run([cli, "query", "--policies", str(GOVERNANCE / "policies.cedar"), "--schema", str(SCHEMA),
                           "--entities", str(GOVERNANCE / "entities.json"), *flags],
                          check=True, capture_output=True, text=True).stdout


def as_cli(matches):
    return [{"uid": {"type": m.uid.type, "id": m.uid.id}, "reasons": m.reasons,
             "errors": [{"policy": p, "message": msg} for p, msg in m.errors]} for m in matches]


def test_listing_is_charter_querys(gov):
    engine, entities = gov
    matches = engine.list_allowed(ALICE, VIEW, TASK, entities=entities)
    assert all(isinstance(m, charter.Match) for m in matches)
    assert len(matches) == 7
    assert matches[0].uid == charter.EntityUid(TASK, "vision-train-17")
    assert matches[0].reasons == ["teams-view-their-tasks"]
    out = json.loads(cli_query("--principal", ALICE, "--action", VIEW, "--resource-type", TASK, "--format", "json"))
    assert as_cli(matches) == out["allowed"]

    task = 'Governance::Task::"vision-train-17"'
    who = engine.list_allowed_principals("Governance::Member", VIEW, task, entities=entities)
    out = json.loads(cli_query("--resource", task, "--action", VIEW, "--principal-type", "Governance::Member",
                               "--format", "json"))
    assert who and as_cli(who) == out["allowed"]


def test_iterators_page_and_stop(gov):
    engine, entities = gov
    everything = engine.list_allowed(ALICE, VIEW, TASK, entities=entities)
    for size in (1, 2, 1000):
        paged = list(engine.iter_allowed(ALICE, VIEW, TASK, entities=entities, page_size=size))
        assert [m.uid for m in paged] == [m.uid for m in everything]
    it = engine.iter_allowed(ALICE, VIEW, TASK, entities=entities, page_size=2)
    first = [next(it) for _ in range(3)]  # stopping early decides no more pages
    assert [m.uid for m in first] == [m.uid for m in everything[:3]]
    task = 'Governance::Task::"vision-train-17"'
    assert [m.uid for m in engine.iter_allowed_principals("Governance::Member", VIEW, task, entities=entities)] == \
        [m.uid for m in engine.list_allowed_principals("Governance::Member", VIEW, task, entities=entities)]


def test_residual_is_charter_querys(gov):
    engine, entities = gov
    r = engine.residual(ALICE, VIEW, TASK, entities=entities)
    assert isinstance(r, charter.Residual)
    assert r.outcome == "depends"
    assert r.condition.startswith('Governance::Member::"alice" in resource.namespace.team')
    assert r.exact is False
    assert r.label_selector is None
    flags = ("--principal", ALICE, "--action", VIEW, "--resource-type", TASK, "--residual")
    assert r.to_json() + "\n" == cli_query(*flags, "--format", "json")
    assert str(r) == cli_query(*flags)
    assert r.condition_json == json.loads(r.to_json())["conditionJson"]


def test_small_policy_set_and_the_reverse():
    engine = charter.compile('''
        @id("ml-view") permit (principal in Team::"ml", action == Action::"view", resource in Namespace::"ml");
        @id("anyone-reads-public") permit (principal, action == Action::"view", resource) when { resource.public };
    ''')
    entities = charter.Entities.from_json('''[
      {"uid": {"type": "User", "id": "alice"}, "attrs": {}, "parents": [{"type": "Team", "id": "ml"}]},
      {"uid": {"type": "User", "id": "bob"}, "attrs": {}, "parents": []},
      {"uid": {"type": "Task", "id": "t1"}, "attrs": {"public": false}, "parents": [{"type": "Namespace", "id": "ml"}]},
      {"uid": {"type": "Task", "id": "t2"}, "attrs": {"public": true}, "parents": []},
      {"uid": {"type": "Task", "id": "t3"}, "attrs": {}, "parents": []}
    ]''')
    bob = engine.list_allowed({"type": "User", "id": "bob"}, 'Action::"view"', "Task", entities=entities)
    assert [(str(m.uid), m.reasons) for m in bob] == [('Task::"t2"', ["anyone-reads-public"])]
    alice = engine.list_allowed(charter.EntityUid("User", "alice"), 'Action::"view"', "Task", entities=entities)
    assert [str(m.uid) for m in alice] == ['Task::"t1"', 'Task::"t2"']
    # t3 has no `public`: the permit errs on it and is skipped (it is not listed).
    assert [str(m.uid) for m in engine.list_allowed_principals("User", 'Action::"view"', 'Task::"t2"',
                                                               entities=entities)] == ['User::"alice"', 'User::"bob"']
    r = engine.residual_principals("User", 'Action::"view"', 'Task::"t1"', entities=entities)
    assert (r.outcome, r.condition) == ("depends", 'principal in Team::"ml"')
    assert r.exact is True
    assert engine.residual('User::"bob"', 'Action::"view"', "Task", entities=entities).condition == "resource.public"
    # An EngineHandle answers the same.
    handle = charter.EngineHandle(engine)
    assert [m.uid for m in handle.list_allowed('User::"alice"', 'Action::"view"', "Task", entities=entities)] == \
        [m.uid for m in alice]


def test_bad_input_is_a_precise_error(gov):
    engine, entities = gov
    with pytest.raises(charter.RequestError, match=r"^the schema declares no entity type `Governance::Tsk`$"):
        engine.list_allowed(ALICE, VIEW, "Governance::Tsk", entities=entities)
    with pytest.raises(charter.RequestError, match=r"^principal: "):
        engine.list_allowed("Governance::Member::alice", VIEW, TASK, entities=entities)
    missing = 'the principal `Governance::Member::"alyce"` is not in the entities; ' \
              'did you mean `Governance::Member::"alice"`?'
    for call in (engine.list_allowed, engine.iter_allowed):
        with pytest.raises(charter.RequestError) as e:
            call('Governance::Member::"alyce"', VIEW, TASK, entities=entities)  # at the call, not at next()
        assert str(e.value) == missing
    with pytest.raises(charter.RequestError, match=r"^the resource `Governance::Task::\"nope\"` is not in the"):
        engine.list_allowed_principals("Governance::Member", VIEW, 'Governance::Task::"nope"', entities=entities)
    with pytest.raises(charter.RequestError, match="does not apply to principals of type `Governance::Team`"):
        engine.residual('Governance::Team::"vision"', VIEW, TASK, entities=entities)
    with pytest.raises(charter.RequestError) as e:
        engine.list_allowed(ALICE, VIEW, TASK, context='{"mfa": }', entities=entities)
    assert (e.value.source, e.value.line, e.value.column) == ("context", 1, 9)
    with pytest.raises(TypeError, match=r"^resource_type: expected str, got int$"):
        engine.list_allowed(ALICE, VIEW, 3, entities=entities)
    with pytest.raises(ValueError, match=r"^page_size: expected a positive int, got 0$"):
        engine.iter_allowed(ALICE, VIEW, TASK, entities=entities, page_size=0)
    with pytest.raises(TypeError, match=r"^page_size: expected int, got str$"):
        engine.iter_allowed(ALICE, VIEW, TASK, entities=entities, page_size="2")
    # Without a schema a misspelt type is named, with the nearest one.
    untyped = charter.compile("permit (principal, action, resource);")
    store = charter.Entities.from_json('[{"uid": {"type": "Task", "id": "t"}, "attrs": {}, "parents": []},'
                                       ' {"uid": {"type": "User", "id": "u"}, "attrs": {}, "parents": []}]')
    with pytest.raises(charter.RequestError, match="no entity in the entities has the resource type `Tsk`; "
                                                   "did you mean `Task`?"):
        untyped.list_allowed('User::"u"', 'Action::"a"', "Tsk", entities=store)
    # A bundle holds no policy text: no residual, but a listing.
    loaded = charter.load_bundle(charter.build("permit (principal, action, resource);"))
    assert [str(m.uid) for m in loaded.list_allowed('User::"u"', 'Action::"a"', "Task", entities=store)] == ['Task::"t"']
    with pytest.raises(charter.BundleError, match="^a residual needs the policy text"):
        loaded.residual('User::"u"', 'Action::"a"', "Task", entities=store)
