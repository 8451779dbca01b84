"""Every call of the Python binding, on small policy sets whose answers are
known."""

import json
import pathlib
import re

import pytest

import charter
from conftest import ENTITIES, POLICIES


def test_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", charter.version())
    assert charter.__version__ == charter.version()


def test_compile_gives_an_engine(engine):
    assert isinstance(engine, charter.Engine)
    assert engine.policy_ids == ["ml-submit", "suspended", "needs-mfa"]
    assert len(engine) == 3
    assert engine.schema is None
    assert engine.warnings == []


def test_authorize_allow_deny_and_reasons(engine, entities):
    d = engine.authorize('User::"alice"', 'Action::"submitTask"', 'Task::"t1"', {"gpus": 4}, entities)
    assert d.allowed is True
    assert d.decision == "allow"
    assert d.reasons == ["ml-submit"]
    assert d.errors == []
    assert bool(d) is True

    d = engine.authorize('User::"bob"', 'Action::"submitTask"', 'Task::"t1"', {"gpus": 4}, entities)
    assert (d.allowed, d.decision, d.reasons) == (False, "deny", ["suspended"])
    assert bool(d) is False

    # Default deny: no determining policy.
    d = engine.authorize('User::"carol"', 'Action::"submitTask"', 'Task::"t1"', {"gpus": 4}, entities)
    assert (d.decision, d.reasons, d.errors) == ("deny", [], [])


def test_decision_repr_json_and_equality(engine, entities):
    d = engine.authorize('User::"alice"', 'Action::"submitTask"', 'Task::"t1"', {"gpus": 1}, entities)
    assert repr(d) == "Decision(decision='allow', reasons=['ml-submit'], errors=[])"
    assert json.loads(d.to_json()) == {"decision": "allow", "reasons": ["ml-submit"], "errors": []}
    again = engine.authorize('User::"alice"', 'Action::"submitTask"', 'Task::"t2"', {"gpus": 2}, entities)
    assert d == again
    other = engine.authorize('User::"bob"', 'Action::"submitTask"', 'Task::"t2"', {"gpus": 2}, entities)
    assert d != other


def test_errors_are_policy_id_and_message(engine, entities):
    # `context.gpus` is missing: ml-submit errs and is skipped.
    d = engine.authorize('User::"alice"', 'Action::"submitTask"', 'Task::"t1"', {}, entities)
    assert d.decision == "deny"
    assert len(d.errors) == 1
    policy, message = d.errors[0]
    assert policy == "ml-submit"
    assert "gpus" in message
    assert "ml-submit" in repr(d)


def test_entity_reference_forms(engine, entities):
    forms = [
        'User::"alice"',
        {"type": "User", "id": "alice"},
        {"__entity": {"type": "User", "id": "alice"}},
        charter.EntityUid("User", "alice"),
    ]
    for form in forms:
        d = engine.authorize(form, {"type": "Action", "id": "submitTask"}, charter.EntityUid.parse('Task::"t"'),
                             context={"gpus": 2}, entities=entities)
        assert d.reasons == ["ml-submit"], form


def test_entity_uid():
    uid = charter.EntityUid.parse('NS::User::"a\\"b"')
    assert (uid.type, uid.id) == ("NS::User", 'a"b')
    assert str(uid) == 'NS::User::"a\\"b"'
    assert repr(uid) == "EntityUid('NS::User', 'a\"b')"
    assert uid == charter.EntityUid("NS::User", 'a"b')
    assert uid != charter.EntityUid("NS::User", "ab")
    assert len({uid, charter.EntityUid("NS::User", 'a"b')}) == 1
    with pytest.raises(charter.RequestError):
        charter.EntityUid.parse("User::alice")


@pytest.mark.parametrize("type_name", ["if", "in", "true", "NS::else", "__cedar", "__cedar::User", "User::",
                                       "", "1User", "User Name"])
def test_entity_uid_type_is_a_name_as_the_parser_reads_one(type_name):
    # The constructor refuses what EntityUid.parse refuses in the text form:
    # a reserved word, or not a name, as a type.
    with pytest.raises(charter.RequestError) as constructed:
        charter.EntityUid(type_name, "x")
    with pytest.raises(charter.RequestError) as parsed:
        charter.EntityUid.parse(f'{type_name}::"x"')
    assert constructed.value.message == parsed.value.message
    with pytest.raises(charter.RequestError) as as_dict:
        charter.Request({"type": type_name, "id": "x"}, 'Action::"a"', 'R::"r"')
    assert as_dict.value.message.endswith(constructed.value.message)


def test_entity_uid_accepts_names_that_hold_reserved_words():
    assert charter.EntityUid("NS::iff", "x").type == "NS::iff"
    assert charter.EntityUid("Truth", "if").id == "if"


CONTEXT_POLICIES = """
@id("flags") permit (principal, action == Action::"flags", resource) when { context.on && !context.off };
@id("long") permit (principal, action == Action::"long", resource)
  when { context.n == 9223372036854775807 && context.m == -9223372036854775808 };
@id("string") permit (principal, action == Action::"string", resource) when { context.s == "gr\\u{fc}n \\"q\\"" };
@id("set") permit (principal, action == Action::"set", resource)
  when { context.tags.contains("a") && context.tags.containsAll(["b", "c"]) && context.more.contains(2) };
@id("record") permit (principal, action == Action::"record", resource)
  when { context.r.inner.deep == [1, [2]] && context.r has x };
@id("entity") permit (principal, action == Action::"entity", resource)
  when { context.owner == User::"alice" && context.team == Team::"ml" && context.who == principal };
@id("extn") permit (principal, action == Action::"extn", resource)
  when { context.ip.isInRange(ip("10.0.0.0/8")) && context.cost.lessThan(decimal("2.5")) };
"""


@pytest.mark.parametrize("action,context", [
    ("flags", {"on": True, "off": False}),
    ("long", {"n": 2**63 - 1, "m": -2**63}),
    ("string", {"s": 'gr\u00fcn "q"'}),
    ("set", {"tags": {"a", "b", "c"}, "more": [1, 2, 3]}),
    ("set", {"tags": frozenset(["a", "b", "c"]), "more": (2,)}),
    ("record", {"r": {"inner": {"deep": [1, [2]]}, "x": ""}}),
    ("entity", {"owner": {"__entity": {"type": "User", "id": "alice"}}, "team": charter.EntityUid("Team", "ml"),
                "who": charter.EntityUid.parse('User::"alice"')}),
    ("extn", {"ip": {"__extn": {"fn": "ip", "arg": "10.1.2.3"}},
              "cost": {"__extn": {"fn": "decimal", "arg": "1.25"}}}),
])
def test_context_values(action, context):
    engine = charter.compile(CONTEXT_POLICIES)
    d = engine.authorize('User::"alice"', {"type": "Action", "id": action}, 'R::"r"', context)
    assert d.errors == []
    assert d.reasons == [action]
    # The same context as JSON text decides the same (sets as lists).
    def plain(v):
        if isinstance(v, (set, frozenset, tuple)):
            return sorted(plain(x) for x in v) if isinstance(v, (set, frozenset)) else [plain(x) for x in v]
        if isinstance(v, list):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, charter.EntityUid):
            return {"__entity": {"type": v.type, "id": v.id}}
        return v
    text = json.dumps(plain(context))
    assert engine.authorize('User::"alice"', {"type": "Action", "id": action}, 'R::"r"', text).reasons == [action]


def test_context_none_and_empty(engine, entities):
    a = engine.authorize('User::"alice"', 'Action::"view"', 'Doc::"d"', None, entities)
    b = engine.authorize('User::"alice"', 'Action::"view"', 'Doc::"d"', {}, entities)
    c = engine.authorize('User::"alice"', 'Action::"view"', 'Doc::"d"', "", entities)
    for d in (a, b, c):
        assert d.decision == "deny"
        assert [p for p, _ in d.errors] == ["needs-mfa"]  # no context.mfa


def test_entities_from_json(entities):
    assert len(entities) == 3
    assert set(entities.uids()) == {charter.EntityUid("User", "alice"), charter.EntityUid("User", "bob"),
                                    charter.EntityUid("Team", "ml")}
    assert 'User::"bob"' in entities
    assert {"type": "User", "id": "zed"} not in entities
    assert len(charter.Entities()) == 0


def test_no_entities_is_an_empty_store(engine):
    d = engine.authorize('User::"alice"', 'Action::"submitTask"', 'Task::"t1"', {"gpus": 1})
    assert d.decision == "deny"  # alice is in no team without the store


def test_batch_of_dicts_tuples_and_prepared(engine, entities):
    prepared = engine.prepare('User::"alice"', 'Action::"view"', 'Doc::"d"', {"mfa": True})
    requests = [
        {"principal": 'User::"alice"', "action": 'Action::"submitTask"', "resource": 'Task::"t"',
         "context": {"gpus": 1}, "description": "ignored"},
        ('User::"bob"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 1}),
        ['User::"alice"', 'Action::"view"', 'Doc::"d"'],
        prepared,
    ]
    decisions = engine.authorize_batch(requests, entities)
    assert [(d.decision, d.reasons) for d in decisions] == [
        ("allow", ["ml-submit"]), ("deny", ["suspended"]), ("deny", []), ("allow", ["needs-mfa"])]
    assert [p for p, _ in decisions[2].errors] == ["needs-mfa"]
    # One by one, the same.
    for request, batched in zip(requests[:2], decisions):
        if isinstance(request, dict):
            single = engine.authorize(request["principal"], request["action"], request["resource"],
                                      request["context"], entities)
        else:
            single = engine.authorize(*request, entities=entities)
        assert single == batched
    assert engine.authorize_batch([], entities) == []
    assert len(engine.authorize_batch(iter(requests), entities)) == 4  # any iterable


def test_prepared_request(engine, entities):
    r = charter.Request('User::"alice"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 3})
    assert r.principal == charter.EntityUid("User", "alice")
    assert r.action == charter.EntityUid("Action", "submitTask")
    assert r.resource == charter.EntityUid("Task", "t")
    assert r.context == '{"gpus": 3}'
    assert repr(r) == 'Request(User::"alice", Action::"submitTask", Task::"t", {"gpus": 3})'
    d = engine.authorize_request(r, entities)
    assert d.reasons == ["ml-submit"]
    for _ in range(3):
        assert engine.authorize_request(r, entities) == d


def test_engine_handle_swap(entities):
    allow = charter.compile('@id("all") permit (principal, action, resource);')
    deny = charter.compile('@id("none") forbid (principal, action, resource);')
    handle = charter.EngineHandle(allow)
    assert handle.generation == 1
    request = ('User::"alice"', 'Action::"view"', 'Doc::"d"')
    assert handle.authorize(*request, entities=entities).reasons == ["all"]
    prepared = handle.prepare(*request)
    handle.swap(deny)
    assert handle.generation == 2
    assert handle.engine.policy_ids == ["none"]
    assert handle.authorize(*request).reasons == ["none"]
    assert handle.authorize_request(prepared, entities).reasons == ["none"]
    assert [d.reasons for d in handle.authorize_batch([request, request])] == [["none"], ["none"]]
    # The engine the handle held still decides as it did.
    assert allow.authorize(*request).reasons == ["all"]


def test_build_and_load_bundle(tmp_path, entities):
    data = charter.build(POLICIES)
    assert isinstance(data, bytes) and len(data) > 0
    path = tmp_path / "policies.bundle"
    path.write_bytes(data)
    for source in (str(path), path, data, bytearray(data)):
        engine = charter.load_bundle(source)
        assert engine.policy_ids == ["ml-submit", "suspended", "needs-mfa"]
        d = engine.authorize('User::"bob"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 1}, entities)
        assert d.reasons == ["suspended"]


TYPED_SCHEMA = """
entity Team;
entity User in [Team] { suspended?: Bool };
entity Task;
action submitTask appliesTo { principal: User, resource: Task, context: { gpus: Long } };
action view appliesTo { principal: User, resource: Task, context: { mfa: Bool } };
"""

TYPED_POLICIES = """
@id("ml-submit")
permit (principal in Team::"ml", action == Action::"submitTask", resource) when { context.gpus <= 8 };
@id("suspended")
forbid (principal, action, resource) when { principal has suspended && principal.suspended };
"""


def test_schema_object():
    schema = charter.Schema(TYPED_SCHEMA)
    assert schema.entity_types() == ["Task", "Team", "User"]
    assert schema.actions() == ['Action::"submitTask"', 'Action::"view"']
    assert schema.fingerprint.startswith("sha256:")
    assert charter.Schema(schema.to_json()).fingerprint == schema.fingerprint
    assert charter.Schema(schema.to_cedar()).fingerprint == schema.fingerprint


def test_typed_engine(tmp_path):
    schema = charter.Schema(TYPED_SCHEMA)
    for s in (schema, TYPED_SCHEMA):
        engine = charter.compile(TYPED_POLICIES, s)
        assert engine.schema.fingerprint == schema.fingerprint
    entities = charter.Entities.from_json(ENTITIES, schema=schema)
    d = engine.authorize('User::"alice"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 2}, entities)
    assert d.reasons == ["ml-submit"]
    # The request is read with the schema: a context that does not conform
    # is refused before anything is decided.
    with pytest.raises(charter.RequestError) as e:
        engine.authorize('User::"alice"', 'Action::"submitTask"', 'Task::"t"', {"gpus": "two"}, entities)
    assert "gpus" in str(e.value)
    with pytest.raises(charter.RequestError):
        engine.authorize('User::"alice"', 'Action::"nope"', 'Task::"t"', {}, entities)
    # Entities read without the schema are refused by a typed engine.
    with pytest.raises(charter.EntitiesError) as e:
        engine.authorize('User::"alice"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 2},
                         charter.Entities.from_json(ENTITIES))
    assert "schema" in str(e.value)
    # A request prepared without the schema too; one prepared by the engine is fine.
    with pytest.raises(charter.RequestError):
        engine.authorize_request(charter.Request('User::"alice"', 'Action::"submitTask"', 'Task::"t"',
                                                 {"gpus": 2}), entities)
    prepared = engine.prepare('User::"alice"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 2})
    assert engine.authorize_request(prepared, entities).reasons == ["ml-submit"]
    same = charter.Request('User::"alice"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 2}, schema=schema)
    assert engine.authorize_request(same, entities).reasons == ["ml-submit"]
    # A typed bundle needs its schema back.
    path = tmp_path / "typed.bundle"
    path.write_bytes(charter.build(TYPED_POLICIES, schema))
    with pytest.raises(charter.BundleError) as e:
        charter.load_bundle(path)
    assert e.value.message.endswith(f": the bundle was compiled with a schema ({schema.fingerprint}): "
                                    "pass it as schema=, so that requests and entities are read with it")
    loaded = charter.load_bundle(path, schema)
    assert loaded.authorize('User::"alice"', 'Action::"submitTask"', 'Task::"t"', {"gpus": 2},
                            entities).reasons == ["ml-submit"]
    other = charter.Schema("entity Other;")
    with pytest.raises(charter.BundleError) as e:
        charter.load_bundle(path, other)
    assert e.value.message.endswith(f": the bundle was compiled with another schema ({schema.fingerprint}); "
                                    f"the schema given is {other.fingerprint}")
    # An untyped bundle takes no schema.
    untyped = tmp_path / "untyped.bundle"
    untyped.write_bytes(charter.build(TYPED_POLICIES))
    with pytest.raises(charter.BundleError) as e:
        charter.load_bundle(untyped, schema)
    assert e.value.message.endswith(": the bundle was compiled without a schema; compile it with one to use schema=")


def test_warnings():
    schema = "entity User; entity Task; action view appliesTo { principal: User, resource: Task };"
    engine = charter.compile('permit (principal, action, resource);\n'
                             '@id("never") permit (principal is Task, action, resource);', schema)
    assert engine.policy_ids == ["policy0", "never"]
    codes = [(w.severity, w.code, w.source, w.line, w.column) for w in engine.warnings]
    assert ("warning", "CH0530", "policies.cedar", 2, 1) in codes
    assert all(isinstance(w, charter.Diagnostic) and w.message for w in engine.warnings)


def test_template_links():
    policies = '@id("t") permit (principal == ?principal, action, resource);'
    links = json.dumps([{"template_id": "t", "link_id": "alice-may", "args": {"?principal": 'User::"alice"'}}])
    engine = charter.compile(policies, links=links)
    assert engine.policy_ids == ["alice-may"]
    assert engine.authorize('User::"alice"', 'Action::"a"', 'R::"r"').reasons == ["alice-may"]
    assert engine.authorize('User::"bob"', 'Action::"a"', 'R::"r"').reasons == []


BORROW = {
    "resource_flavors": ["default"],
    "cohorts": [{"name": "ml", "parent": None}],
    "cluster_queues": [
        {"name": "team-a", "cohort": "ml",
         "resource_groups": [{"covered_resources": ["cpu"],
                              "flavors": [{"name": "default", "quotas": {"cpu": {"nominal": 9, "borrowing_limit": 1}}}]}]},
        {"name": "team-b", "cohort": "ml",
         "resource_groups": [{"covered_resources": ["cpu"],
                              "flavors": [{"name": "default", "quotas": {"cpu": {"nominal": 12}}}]}]},
    ],
    "pending": [
        {"name": "fits", "cluster_queue": "team-a", "created_at": -20,
         "pod_sets": [{"name": "main", "count": 5, "requests": {"cpu": "2"}}]},
        {"name": "too-big", "cluster_queue": "team-b", "created_at": -10,
         "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "22"}}]},
    ],
}


def test_schedule(tmp_path):
    result = charter.schedule(BORROW)
    assert isinstance(result, dict)
    assert charter.schedule(json.dumps(BORROW)) == result
    text = json.dumps(result)
    assert "fits" in text and "too-big" in text
    # The same as `charter schedule --format json`.
    import os
    import subprocess
    cli = os.environ.get("CHARTER_CLI")
    assert cli, "CHARTER_CLI names the charter command (ctest sets it)"
    state = tmp_path / "borrow.json"
    state.write_text(json.dumps(BORROW))
    out = subprocess.run([cli, "schedule", "--state", str(state), "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    assert json.loads(out) == result


def test_schedule_hyperpod():
    from conftest import SOURCE_DIR
    text = (SOURCE_DIR / "tests" / "schedule" / "hyperpod" / "hyperpod-walkthrough.json").read_text()
    result = charter.schedule(text, hyperpod=True)
    assert isinstance(result, dict)
    with pytest.raises(charter.ScheduleError):
        charter.schedule(text)  # not a Kueue state


def test_docstrings_and_stubs():
    assert charter.compile.__doc__ and "Engine" in charter.compile.__doc__
    assert "GIL" in charter.Engine.authorize.__doc__
    assert charter.Engine.authorize_batch.__doc__
    package = pathlib.Path(charter.__file__).parent
    assert (package / "py.typed").exists()
    stubs = (package / "__init__.pyi").read_text()
    for name in charter.__all__:
        assert re.search(rf"^(class|def) {name}\b", stubs, re.M), name
    assert charter.Engine.__module__ == "charter"
    assert charter.PolicyError.__module__ == "charter"
