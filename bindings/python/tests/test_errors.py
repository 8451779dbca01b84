"""Errors: each raises its charter.Error subclass with Charter's message and
position; a wrong Python type raises TypeError naming the argument."""

import pickle

import pytest

import charter
from conftest import ENTITIES


def test_error_hierarchy():
    for cls in (charter.PolicyError, charter.SchemaError, charter.EntitiesError, charter.RequestError,
                charter.BundleError, charter.ScheduleError):
        assert issubclass(cls, charter.Error)
    assert issubclass(charter.Error, Exception)


def test_error_parses_its_position():
    e = charter.Error("dir:with:colons/p.cedar:3:44: error[CH0101]: unexpected `&&`")
    assert (e.source, e.line, e.column) == ("dir:with:colons/p.cedar", 3, 44)
    assert e.code == "CH0101"
    assert e.message == "unexpected `&&`"
    e = charter.Error("no position here")
    assert (e.source, e.line, e.column, e.code, e.message) == (None, None, None, None, "no position here")
    copy = pickle.loads(pickle.dumps(charter.PolicyError("p.cedar:1:2: bad", code="CH0001")))
    assert type(copy) is charter.PolicyError
    assert (str(copy), copy.line, copy.column, copy.code) == ("p.cedar:1:2: bad", 1, 2, "CH0001")


def test_policy_error_position_and_diagnostics():
    text = 'permit (principal, action, resource);\npermit (principal, action, resource) when { && };\n'
    with pytest.raises(charter.PolicyError) as info:
        charter.compile(text, source_name="mine.cedar")
    e = info.value
    assert (e.source, e.line, e.column) == ("mine.cedar", 2, 45)
    assert e.code and e.code.startswith("CH")
    assert "&&" in e.message
    assert str(e).startswith("mine.cedar:2:45: ")
    assert e.diagnostics
    first = e.diagnostics[0]
    assert (first.severity, first.source, first.line, first.column, first.code) == (
        "error", "mine.cedar", 2, 45, e.code)


def test_policy_error_from_validation():
    schema = "entity User; action view appliesTo { principal: User, resource: User };"
    with pytest.raises(charter.PolicyError) as info:
        charter.compile('permit (principal, action == Action::"view", resource)\nwhen { principal.nope };', schema)
    e = info.value
    assert (e.source, e.line) == ("policies.cedar", 2)
    assert e.code.startswith("CH05")
    assert "nope" in e.message


def test_schema_error_position():
    with pytest.raises(charter.SchemaError) as info:
        charter.Schema("entity User;\nentity Task in [Nope];")
    e = info.value
    assert (e.source, e.line) == ("schema.cedarschema", 2)
    assert e.column is not None and e.code.startswith("CH04")
    assert "Nope" in e.message
    assert e.diagnostics[0].line == 2
    with pytest.raises(charter.SchemaError) as info:
        charter.compile("permit (principal, action, resource);", '{"": {"entityTypes": 3}}')
    assert info.value.source == "schema.json"


def test_entities_error_position():
    with pytest.raises(charter.EntitiesError) as info:
        charter.Entities.from_json('[\n  {"uid": {"type": "User", "id": "a"}, "attrs": {}, "parents": [}\n]')
    e = info.value
    assert (e.source, e.line) == ("entities.json", 2)
    assert e.column > 1
    with pytest.raises(charter.EntitiesError) as info:
        charter.Entities.from_json('[{"uid": {"type": "User", "id": "a"}, "attrs": {"n": 99999999999999999999},'
                                   ' "parents": []}]', source_name="big.json")
    assert info.value.source == "big.json"
    assert "64" in info.value.message or "fit" in info.value.message


def test_entities_error_with_schema():
    schema = "entity User { age: Long };"
    with pytest.raises(charter.EntitiesError) as info:
        charter.Entities.from_json('[{"uid": {"type": "User", "id": "a"}, "attrs": {"age": "x"}, "parents": []}]',
                                   schema)
    assert "age" in info.value.message
    assert info.value.line == 1


def test_request_errors(engine, entities):
    with pytest.raises(charter.RequestError) as info:
        engine.authorize('User::alice', 'Action::"view"', 'Doc::"d"')
    assert str(info.value).startswith("principal: ")
    with pytest.raises(charter.RequestError) as info:
        engine.authorize('User::"alice"', {"type": "Action"}, 'Doc::"d"')
    assert str(info.value).startswith("action: ")
    with pytest.raises(charter.RequestError) as info:
        engine.authorize('User::"alice"', 'Action::"view"', {"type": "if", "id": "x"})
    assert str(info.value).startswith("resource: ")
    # Context text has positions.
    with pytest.raises(charter.RequestError) as info:
        engine.authorize('User::"alice"', 'Action::"view"', 'Doc::"d"', '{"mfa": tru}')
    assert (info.value.source, info.value.line, info.value.column) == ("context", 1, 9)
    # Integers must fit in 64 bits.
    with pytest.raises(charter.RequestError) as info:
        engine.authorize('User::"alice"', 'Action::"view"', 'Doc::"d"', {"n": {"m": [2**63]}})
    assert str(info.value) == "context.n.m[0]: 9223372036854775808 does not fit in 64 bits (a Cedar Long)"
    with pytest.raises(charter.RequestError):
        engine.authorize('User::"alice"', 'Action::"view"', 'Doc::"d"', {"n": -2**63 - 1})
    # Nesting is bounded.
    deep = []
    for _ in range(100):
        deep = [deep]
    with pytest.raises(charter.RequestError) as info:
        engine.authorize('User::"alice"', 'Action::"view"', 'Doc::"d"', {"deep": deep})
    assert "nest" in str(info.value)
    loop = []
    loop.append(loop)
    with pytest.raises(charter.RequestError):
        engine.authorize('User::"alice"', 'Action::"view"', 'Doc::"d"', {"loop": loop})


def test_batch_errors_name_the_request(engine, entities):
    good = ('User::"alice"', 'Action::"view"', 'Doc::"d"')
    with pytest.raises(charter.RequestError) as info:
        engine.authorize_batch([good, ('User::"alice"', 'Action::view', 'Doc::"d"')], entities)
    assert str(info.value).startswith("requests[1].action: ")
    with pytest.raises(charter.RequestError) as info:
        engine.authorize_batch([good, good, {"principal": 'User::"a"', "action": 'Action::"v"'}])
    assert str(info.value) == 'requests[2]: missing "resource"'
    with pytest.raises(charter.RequestError) as info:
        engine.authorize_batch([{"principal": 'User::"a"', "action": 'Action::"v"', "resource": 'R::"r"',
                                 "contxt": {}}])
    assert str(info.value) == 'requests[0]: unknown key "contxt"'
    with pytest.raises(charter.RequestError) as info:
        engine.authorize_batch([good + ('{"a": }',)])
    assert (info.value.source, info.value.line) == ("requests[0].context", 1)
    with pytest.raises(charter.RequestError) as info:
        engine.authorize_batch([good, good[:2]])
    assert "requests[1]" in str(info.value)
    with pytest.raises(TypeError) as info:
        engine.authorize_batch([good, 42])
    assert str(info.value).startswith("requests[1]: expected ")
    with pytest.raises(TypeError) as info:
        engine.authorize_batch([good + ({"x": 1.5},)])
    assert str(info.value).startswith("requests[0].context.x: expected a Cedar value")


def test_bundle_errors(tmp_path):
    missing = tmp_path / "missing.bundle"
    with pytest.raises(charter.BundleError) as info:
        charter.load_bundle(missing)
    assert str(missing) in str(info.value)
    corrupt = tmp_path / "corrupt.bundle"
    corrupt.write_bytes(b"not a bundle at all, not even close")
    with pytest.raises(charter.BundleError) as info:
        charter.load_bundle(corrupt)
    assert str(info.value).startswith(str(corrupt) + ": ")
    with pytest.raises(charter.BundleError):
        charter.load_bundle(b"\x00" * 64)
    # A valid bundle, cut short.
    data = charter.build("permit (principal, action, resource);")
    with pytest.raises(charter.BundleError):
        charter.load_bundle(data[: len(data) // 2])


def test_schedule_errors():
    with pytest.raises(charter.ScheduleError) as info:
        charter.schedule('{"resource_flavors": ["default"],\n "cluster_queuez": []}')
    e = info.value
    assert (e.source, e.line) == ("state.json", 2)
    assert "cluster_queuez" in e.message
    with pytest.raises(charter.ScheduleError):
        charter.schedule({"pending": [{"name": "w", "cluster_queue": "nope", "pod_sets": []}]})


@pytest.mark.parametrize("call,names", [
    (lambda: charter.compile(42), "policies: expected str, got int"),
    (lambda: charter.compile(b"permit (principal, action, resource);"), "policies: expected str, got bytes"),
    (lambda: charter.compile("permit (principal, action, resource);", 3),
     "schema: expected a charter.Schema or schema text (str), got int"),
    (lambda: charter.compile("permit (principal, action, resource);", links=[]), "links: expected str, got list"),
    (lambda: charter.Entities.from_json(None), "text: expected str, got NoneType"),
    (lambda: charter.Entities.from_json("[]", schema=1.0), "schema: expected a charter.Schema"),
    (lambda: charter.load_bundle(3), "path: expected a path (str or os.PathLike), got int"),
    (lambda: charter.schedule(3), "state: expected a dict or JSON text (str), got int"),
    (lambda: charter.schedule("{}", scenario=3), "scenario: expected str, got int"),
    (lambda: charter.Schema(None), "text: expected a charter.Schema or schema text (str), got NoneType"),
    (lambda: charter.EngineHandle("engine"), "engine: expected charter.Engine, got str"),
    (lambda: charter.EntityUid("User", 3), "id: expected str, got int"),
])
def test_wrong_types_raise_type_error(call, names):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value).startswith(names)


@pytest.mark.parametrize("args,kwargs,message", [
    ((3, 'Action::"a"', 'R::"r"'), {}, "principal: expected an entity reference"),
    (('U::"u"', None, 'R::"r"'), {}, "action: expected an entity reference"),
    (('U::"u"', 'Action::"a"', ["R", "r"]), {}, "resource: expected an entity reference"),
    (('U::"u"', 'Action::"a"', {"type": "R", "id": 3}), {}, 'resource["id"]: expected str, got int'),
    (('U::"u"', 'Action::"a"', 'R::"r"', [1]), {}, "context: expected a dict, JSON text (str) or None, got list"),
    (('U::"u"', 'Action::"a"', 'R::"r"', {"x": 1.5}), {}, "context.x: expected a Cedar value (Cedar has no "
                                                           "floating-point numbers"),
    (('U::"u"', 'Action::"a"', 'R::"r"', {"x": None}), {}, "context.x: expected a Cedar value"),
    (('U::"u"', 'Action::"a"', 'R::"r"', {"x": {1: 2}}), {}, "context.x (a key): expected str, got int"),
    (('U::"u"', 'Action::"a"', 'R::"r"', {"x": [object()]}), {}, "context.x[0]: expected a Cedar value"),
    (('U::"u"', 'Action::"a"', 'R::"r"'), {"entities": "[]"}, "entities: expected charter.Entities or None, "
                                                               "got str"),
])
def test_wrong_types_in_authorize(engine, args, kwargs, message):
    with pytest.raises(TypeError) as info:
        engine.authorize(*args, **kwargs)
    assert str(info.value).startswith(message)


def test_wrong_types_elsewhere(engine):
    with pytest.raises(TypeError) as info:
        engine.authorize_request(('U::"u"', 'Action::"a"', 'R::"r"'))
    assert str(info.value) == "request: expected charter.Request, got tuple"
    with pytest.raises(TypeError) as info:
        engine.authorize_batch("requests")
    assert str(info.value) == "requests: expected a list of requests, got str"
    with pytest.raises(TypeError):
        engine.authorize_batch(5)
    with pytest.raises(UnicodeEncodeError):
        engine.authorize('U::"u"', 'Action::"a"', 'R::"r"', {"x": "\ud800"})


def test_entities_need_the_engines_schema():
    schema = charter.Schema("entity User; action view appliesTo { principal: User, resource: User };")
    other = charter.Schema("entity User; entity Doc; action view appliesTo { principal: User, resource: Doc };")
    engine = charter.compile('permit (principal, action == Action::"view", resource);', schema)
    with pytest.raises(charter.EntitiesError) as info:
        engine.authorize('User::"a"', 'Action::"view"', 'User::"b"', entities=charter.Entities.from_json("[]", other))
    assert "another" in info.value.message
    same = charter.Entities.from_json('[{"uid": {"type": "User", "id": "a"}, "attrs": {}, "parents": []}]', schema)
    assert engine.authorize('User::"a"', 'Action::"view"', 'User::"b"', entities=same).allowed
    assert engine.authorize('User::"a"', 'Action::"view"', 'User::"b"').allowed  # None: the schema's store
