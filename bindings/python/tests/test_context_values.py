"""Contexts given as dicts go to the C API as values (charter_value), not as
JSON text; a context given as JSON text (a str) still goes as text. Both
must be the same request: every value kind, with a schema and without, the
governance example's requests, and the faults."""

import json

import pytest

import charter
from conftest import GOVERNANCE, SCHEMA

SCHEMA_TEXT = """
entity Team;
entity User in [Team];
entity Task;
action submit appliesTo { principal: User, resource: Task, context: {
  gpus: Long, now: datetime, team: Team, tags: Set<String>, ok: Bool,
  src?: ipaddr, budget?: decimal, limit?: duration, meta?: { zone: String } } };
"""

POLICIES = """
@id("submit")
permit (principal in Team::"ml", action == Action::"submit", resource)
when { context.gpus <= 8 && context.now < datetime("2026-01-01") && context.team == Team::"ml" &&
       context.tags.contains("train") && context.ok &&
       (if context has src then context.src.isInRange(ip("10.0.0.0/8")) else true) &&
       (if context has budget then context.budget.lessThan(decimal("100.0")) else true) &&
       (if context has limit then context.limit < duration("2h") else true) &&
       (if context has meta then context.meta.zone == "eu" else true) };
"""

ENTITIES = """[
  {"uid": {"type": "User", "id": "alice"}, "attrs": {}, "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Task", "id": "t1"}, "attrs": {}, "parents": []}
]"""

FULL = {
    "gpus": 4,
    "now": {"__extn": {"fn": "datetime", "arg": "2025-11-03T09:00:00Z"}},
    "team": {"__entity": {"type": "Team", "id": "ml"}},
    "tags": ["train", "gpu"],
    "ok": True,
    "src": {"__extn": {"fn": "ip", "arg": "10.1.2.3"}},
    "budget": {"__extn": {"fn": "decimal", "arg": "12.50"}},
    "limit": {"__extn": {"fn": "duration", "arg": "1h30m"}},
    "meta": {"zone": "eu"},
}

PARTS = ('User::"alice"', 'Action::"submit"', 'Task::"t1"')


@pytest.fixture(scope="module")
def world():
    schema = charter.Schema(SCHEMA_TEXT)
    return (charter.compile(POLICIES, schema), charter.compile(POLICIES),
            charter.Entities.from_json(ENTITIES, schema), schema)


def both(engine, entities, context):
    """The decision with the context as a dict (a value) and as JSON text."""
    by_value = engine.authorize(*PARTS, context, entities)
    by_text = engine.authorize(*PARTS, json.dumps(context), entities)
    assert by_value == by_text
    return by_value


def test_every_kind_typed_and_untyped(world):
    typed, untyped, entities, _ = world
    assert both(typed, entities, FULL).decision == "allow"
    assert both(untyped, entities, FULL).decision == "allow"
    # Each extension value's constructor decides: outside the range, deny.
    for key, arg in (("src", "192.168.0.1"), ("budget", "200.0"), ("limit", "3h"),
                     ("now", "2026-06-01T00:00:00Z")):
        context = dict(FULL)
        context[key] = {"__extn": {"fn": context[key]["__extn"]["fn"], "arg": arg}}
        assert both(typed, entities, context).decision == "deny", key
        assert both(untyped, entities, context).decision == "deny", key


def test_python_forms(world):
    typed, untyped, entities, _ = world
    # A tuple, a set and a frozenset are sets; a charter.EntityUid an entity.
    for tags in (("train", "gpu"), {"train", "gpu"}, frozenset(["train"])):
        context = dict(FULL, tags=tags, team=charter.EntityUid("Team", "ml"))
        assert typed.authorize(*PARTS, context, entities).decision == "allow"
        assert untyped.authorize(*PARTS, context, entities).decision == "allow"


def test_plain_forms_under_a_schema(world):
    typed, untyped, entities, _ = world
    # What the JSON reader takes for a declared type: an extension value's
    # string, an entity as {"type", "id"}, a call without `__extn`.
    context = dict(FULL, now="2025-11-03T09:00:00Z", team={"type": "Team", "id": "ml"},
                   src={"fn": "ip", "arg": "10.1.2.3"})
    assert both(typed, entities, context).decision == "allow"
    # Untyped they are a string and records: the policy errs or denies, as in text.
    assert both(untyped, entities, context).decision == "deny"


def test_sets_of_mixed_kinds(world):
    typed, untyped, entities, _ = world
    context = dict(FULL, tags=["train", 1, True, {"__entity": {"type": "Team", "id": "ml"}}])
    assert both(untyped, entities, context).decision == "allow"
    with pytest.raises(charter.RequestError) as info:
        typed.authorize(*PARTS, context, entities)
    assert str(info.value) == "context: context: attribute `tags[1]`: expected `String`, found a long"


def test_integer_bounds(world):
    _, untyped, entities, _ = world
    for n in (2**63 - 1, -2**63, 0):
        both(untyped, entities, dict(FULL, n=n))
    with pytest.raises(charter.RequestError) as info:
        untyped.authorize(*PARTS, dict(FULL, n=2**63), entities)
    assert str(info.value) == "context.n: 9223372036854775808 does not fit in 64 bits (a Cedar Long)"


@pytest.mark.parametrize("context,message", [
    (dict(FULL, gpus="4"), "context: context: attribute `gpus`: expected `Long`, found a string"),
    ({"gpus": 4}, "context: context: lacks the required attribute `now`"),
    (dict(FULL, extra=1), "context: context: attribute `extra` is not declared in the schema"),
    (dict(FULL, team={"__entity": {"type": "User", "id": "ml"}}),
     'context: context: attribute `team`: expected an entity of type `Team`, found `User::"ml"`'),
    (dict(FULL, now={"__extn": {"fn": "datetime", "arg": "yesterday"}}), "context: context: attribute `now`: "),
    (dict(FULL, gpus={"__extn": {"fn": "unknown", "arg": "x"}}), "context: context: attribute `gpus`: `unknown`"),
])
def test_faults_against_a_schema(world, context, message):
    typed, _, entities, _ = world
    with pytest.raises(charter.RequestError) as by_value:
        typed.authorize(*PARTS, context, entities)
    assert str(by_value.value).startswith(message)
    # The same context as text is refused too (its message has a position).
    with pytest.raises(charter.RequestError):
        typed.authorize(*PARTS, json.dumps(context), entities)


def test_python_type_faults_unchanged(world):
    _, untyped, entities, _ = world
    with pytest.raises(TypeError) as info:
        untyped.authorize(*PARTS, {"a": {"b": [1.5]}}, entities)
    assert str(info.value).startswith("context.a.b[0]: expected a Cedar value (Cedar has no floating-point")
    with pytest.raises(TypeError) as info:
        untyped.authorize(*PARTS, {"a": {1: 2}}, entities)
    assert str(info.value) == "context.a (a key): expected str, got int"
    with pytest.raises(charter.RequestError) as info:
        untyped.authorize(*PARTS, {"x": {"__extn": {"fn": "nope", "arg": "1"}}}, entities)
    assert "unknown extension function `nope`" in str(info.value)


def test_escapes_a_value_cannot_say_go_as_text(world):
    # `__expr`, and a call whose argument is not a string: the context is
    # written as JSON text, as before, with the same answer as the text.
    _, untyped, entities, _ = world
    for context in ({"x": {"__expr": "1 + 1"}}, {"x": {"__extn": {"fn": "ip", "arg": 1}}},
                    {"x": {"__extn": {"fn": "ip", "args": ["10.0.0.1"]}}}):
        outcomes = []
        for c in (context, json.dumps(context)):
            try:
                outcomes.append(untyped.authorize(*PARTS, c, entities).decision)
            except charter.RequestError:
                outcomes.append("refused")
        assert outcomes[0] == outcomes[1], context


def test_prepared_and_batch_take_values(world):
    typed, _, entities, schema = world
    r = charter.Request(*PARTS, FULL, schema=schema)
    assert typed.authorize_request(r, entities).decision == "allow"
    decisions = typed.authorize_batch([PARTS + (FULL,), PARTS + (dict(FULL, gpus=64),)], entities)
    assert [d.decision for d in decisions] == ["allow", "deny"]
    with pytest.raises(charter.RequestError) as info:
        typed.authorize_batch([PARTS + (FULL,), PARTS + (dict(FULL, gpus="x"),)], entities)
    assert str(info.value).startswith("requests[1].context: context: attribute `gpus`")


def test_governance_requests_both_ways():
    schema = charter.Schema(SCHEMA.read_text())
    engine = charter.compile((GOVERNANCE / "policies.cedar").read_text(), schema)
    entities = charter.Entities.from_json((GOVERNANCE / "entities.json").read_text(), schema)
    requests = json.loads((GOVERNANCE / "requests.json").read_text())
    allowed = 0
    for r in requests:
        parts = (r["principal"], r["action"], r["resource"])
        by_value = engine.authorize(*parts, r["context"], entities)
        by_text = engine.authorize(*parts, json.dumps(r["context"]), entities)
        assert by_value == by_text, r["description"]
        allowed += by_value.allowed
    assert allowed > 0
