"""The Python API of Charter over the extension charter._charter, which calls
Charter's C API (bindings/c/include/charter.h) and nothing else.

The classes here subclass the extension's types: an Engine is a
_charter.EngineBase, whose per-decision methods (authorize,
authorize_request, authorize_batch, prepare) are C, since a Python method
around them would cost a tenth of a decision; everything else (arguments,
iteration, docstrings) is Python.
"""

from __future__ import annotations

import json as _json
import os
import sys
import threading
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import _charter
from ._errors import BundleError, Diagnostic

__all__ = [
    "Decision",
    "Engine",
    "EngineHandle",
    "Entities",
    "EntityUid",
    "Match",
    "Residual",
    "Request",
    "Schema",
    "build",
    "c_api_version",
    "compile",
    "load_bundle",
    "schedule",
    "version",
]

Decision = _charter.Decision
version = _charter.version
c_api_version = _charter.c_api_version


def _type_error(what: str, expected: str, got: Any) -> TypeError:
    return TypeError(f"{what}: expected {expected}, got {type(got).__name__}")


class EntityUid:
    """EntityUid(type: str, id: str)

    A reference to an entity: its type (with namespaces) and id. A type that
    is not a name as EntityUid.parse reads one (a reserved word such as
    'if') raises RequestError."""

    __slots__ = ("_type", "_id")

    def __init__(self, type: str, id: str) -> None:  # noqa: A002 - the API's names
        if not isinstance(type, str):
            raise _type_error("type", "str", type)
        if not isinstance(id, str):
            raise _type_error("id", "str", id)
        _charter._uid_format(type, id)  # checks the type (charter_uid_format)
        self._type = type
        self._id = id

    @staticmethod
    def parse(text: str) -> "EntityUid":
        """parse(text: str) -> EntityUid

        Reads Cedar's text form, 'Type::"id"' (with namespaces and escapes)."""
        type_, id_ = _charter._uid_parse(text)
        return EntityUid._make(type_, id_)

    @staticmethod
    def _make(type_: str, id_: str) -> "EntityUid":
        uid = object.__new__(EntityUid)
        uid._type = type_
        uid._id = id_
        return uid

    @property
    def type(self) -> str:
        """The entity's type, with its namespaces ('NS::User')."""
        return self._type

    @property
    def id(self) -> str:
        """The entity's id, unescaped."""
        return self._id

    def __str__(self) -> str:
        return _charter._uid_format(self._type, self._id)

    def __repr__(self) -> str:
        return f"EntityUid({self._type!r}, {self._id!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EntityUid) and (self._type, self._id) == (other._type, other._id)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((self._type, self._id))


def _schema(obj: Any, what: str) -> Optional["Schema"]:
    """A charter.Schema from a Schema, its text, or None."""
    if obj is None or isinstance(obj, Schema):
        return obj
    if isinstance(obj, str):
        return Schema(obj)
    raise _type_error(what, "a charter.Schema or schema text (str)", obj)


class Schema(_charter.SchemaBase):
    """A schema, in Cedar's schema text or JSON schema format."""

    __slots__ = ()

    def __new__(cls, text: str) -> "Schema":
        """Schema(text: str)

        Reads a schema; a fault raises SchemaError."""
        if isinstance(text, Schema):
            return text
        if not isinstance(text, str):
            raise _type_error("text", "a charter.Schema or schema text (str)", text)
        return _charter._schema_parse(cls, text)

    def to_json(self) -> str:
        """to_json() -> str

        The schema in Cedar's JSON schema format."""
        return _charter._schema_info(self)[0]

    def to_cedar(self) -> str:
        """to_cedar() -> str

        The schema in Cedar's schema text."""
        return _charter._schema_info(self)[1]

    @property
    def fingerprint(self) -> str:
        """'sha256:' and the SHA-256 of to_json(): the same for the same schema."""
        return _charter._schema_info(self)[2]

    def entity_types(self) -> List[str]:
        """entity_types() -> list[str]

        Every entity type, sorted."""
        return _charter._schema_info(self)[3]

    def actions(self) -> List[str]:
        """actions() -> list[str]

        Every action, as 'Action::"name"' strings, sorted."""
        return _charter._schema_info(self)[4]


class Entities(_charter.EntitiesBase):
    """An immutable entity store, shared by any number of calls."""

    __slots__ = ()

    def __new__(cls) -> "Entities":
        """An empty store."""
        return _charter._entities_from_json(cls, "[]", None, "entities.json")

    @classmethod
    def from_json(cls, text: str, schema: Any = None, source_name: str = "entities.json") -> "Entities":
        """from_json(text, schema=None, source_name='entities.json') -> Entities

        Reads Cedar's JSON entity format; with a schema (a charter.Schema or its text), as Cedar
        reads entities with one (docs/entities.md). A fault raises EntitiesError."""
        if not isinstance(text, str):
            raise _type_error("text", "str", text)
        return _charter._entities_from_json(cls, text, _schema(schema, "schema"), source_name)

    def extend(self, text: str) -> "Entities":
        """extend(text: str) -> Entities

        A new store: this one's entities and those of `text` (an array in Cedar's JSON entity
        format, read with this store's schema), for entities that belong to one request. They
        may name this store's entities as parents. An entity of this store given again is
        accepted when it is the same; a different one, or data for an entity this store names
        as a parent without data, raises EntitiesError. This store is not copied: the cost grows with
        `text` alone (charter_entities_extend)."""
        return _charter._entities_extend(self, text)

    def __len__(self) -> int:
        return _charter._entities_len(self)

    def uids(self) -> List[EntityUid]:
        """uids() -> list[EntityUid]

        The entities with data, in the store's order."""
        return [EntityUid._make(t, i) for t, i in _charter._entities_uids(self)]

    def __contains__(self, uid: Any) -> bool:
        return _charter._entities_contains(self, uid)

    def __repr__(self) -> str:
        return f"<charter.Entities of {len(self)}>"


class Request(_charter.RequestBase):
    """Request(principal, action, resource, context=None, schema=None)

    A request read once, for Engine.authorize_request()."""

    __slots__ = ()

    def __new__(cls, principal: Any, action: Any, resource: Any, context: Any = None,
                schema: Any = None) -> "Request":
        return _charter._request_new(cls, principal, action, resource, context, _schema(schema, "schema"))

    @property
    def principal(self) -> EntityUid:
        return EntityUid._make(*_charter._request_parts(self)[0])

    @property
    def action(self) -> EntityUid:
        return EntityUid._make(*_charter._request_parts(self)[1])

    @property
    def resource(self) -> EntityUid:
        return EntityUid._make(*_charter._request_parts(self)[2])

    @property
    def context(self) -> str:
        """The context as a Cedar record literal."""
        return _charter._request_parts(self)[3]

    def __repr__(self) -> str:
        p, a, r, c = _charter._request_parts(self)
        names = [_charter._uid_format(*uid) for uid in (p, a, r)]
        return f"Request({names[0]}, {names[1]}, {names[2]}, {c})"


class Match:
    """One entity a query is allowed on: uid, reasons and errors."""

    __slots__ = ("_uid", "_reasons", "_errors")

    def __init__(self, uid: EntityUid, reasons: List[str], errors: List[Tuple[str, str]]) -> None:
        self._uid = uid
        self._reasons = reasons
        self._errors = errors

    @property
    def uid(self) -> EntityUid:
        """The entity, a charter.EntityUid."""
        return self._uid

    @property
    def reasons(self) -> List[str]:
        """The determining policies' ids, as in Decision.reasons."""
        return list(self._reasons)

    @property
    def errors(self) -> List[Tuple[str, str]]:
        """(policy_id, message) pairs: the policies skipped on it with an error."""
        return list(self._errors)

    def __repr__(self) -> str:
        return f"Match(uid={self._uid!r}, reasons={self._reasons!r})"


def _match(t: Tuple[str, str, List[str], List[Tuple[str, str]]]) -> Match:
    return Match(EntityUid._make(t[0], t[1]), t[2], t[3])


class Residual:
    """The condition on an unknown entity under which a query is allowed (engine.residual())."""

    __slots__ = ("_outcome", "_condition", "_condition_json", "_exact", "_label_selector", "_json", "_text")

    def __init__(self, fields: Tuple[Any, ...]) -> None:
        (self._outcome, self._condition, self._condition_json, self._exact, self._label_selector, self._json,
         self._text) = fields

    @property
    def outcome(self) -> str:
        """'allow' (for every entity of the type), 'deny' (for none) or 'depends' (where condition holds)."""
        return self._outcome

    @property
    def condition(self) -> str:
        """The condition as Cedar text over `resource` (or `principal`); 'true' or 'false' when it does
        not depend on the unknown."""
        return self._condition

    @property
    def condition_json(self) -> Dict[str, Any]:
        """The condition as Cedar's JSON expression (a dict)."""
        return _json.loads(self._condition_json)

    @property
    def exact(self) -> bool:
        """True when the condition can never fail to evaluate."""
        return self._exact

    @property
    def label_selector(self) -> Optional[str]:
        """The condition as a Kubernetes label selector, or None when there is none."""
        return self._label_selector

    def to_json(self) -> str:
        """to_json() -> str

        The residual as `charter query --residual --format json` prints it."""
        return self._json

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Residual(outcome={self._outcome!r}, condition={self._condition!r})"


class _Matches:
    """The matches of iter_allowed(), a page at a time: each page is decided
    (the GIL released) when the last is used up."""

    __slots__ = ("_engine", "_entities", "_query", "_size", "_buffer", "_pos", "_next", "_done")

    def __init__(self, engine: "Engine", entities: Any, query: Any, size: int) -> None:
        self._engine = engine
        self._entities = entities
        self._query = query
        self._size = size
        self._buffer: List[Any] = []
        self._pos = 0
        self._next = 0
        self._done = False
        self._fill()  # the query's faults are raised here, not at the first next()

    def _fill(self) -> None:
        while self._pos == len(self._buffer) and not self._done:
            self._buffer, self._next = _charter._list_page(self._engine, self._entities, self._query, self._next,
                                                           self._size)
            self._pos = 0
            self._done = self._next == 0

    def __iter__(self) -> "_Matches":
        return self

    def __next__(self) -> Match:
        self._fill()
        if self._pos == len(self._buffer):
            raise StopIteration
        self._pos += 1
        return _match(self._buffer[self._pos - 1])


def _page_size(page_size: Any) -> int:
    if not isinstance(page_size, int) or isinstance(page_size, bool):
        raise _type_error("page_size", "int", page_size)
    if page_size <= 0:
        raise ValueError(f"page_size: expected a positive int, got {page_size}")
    return page_size


class Engine(_charter.EngineBase):
    """A verified policy set; immutable, safe to share across threads."""

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> "Engine":
        raise TypeError("an Engine is made by charter.compile() or charter.load_bundle()")

    def _info(self) -> Tuple[Any, ...]:
        return _charter._engine_info(self)

    @property
    def policy_ids(self) -> List[str]:
        """The policies' ids in policy-set order."""
        return list(self._info()[0])

    def __len__(self) -> int:
        return len(self._info()[0])

    @property
    def schema(self) -> Optional[Schema]:
        """The schema a typed engine was compiled with, or None."""
        return self._info()[4]

    @property
    def warnings(self) -> List[Diagnostic]:
        """The compiler's warnings, as charter.Diagnostic values (a policy that can never apply, ...)."""
        return [Diagnostic(*w) for w in self._info()[1]]

    def authorize_json(self, request: str, entities: Optional[Entities] = None) -> Decision:
        """authorize_json(request: str, entities=None) -> Decision

        Decides one request given as Charter's request JSON, {"principal": ..., "action": ...,
        "resource": ..., "context": {...}} (one object of a requests.json file)."""
        schema = self.schema
        if schema is None:
            return self.authorize_request(_charter._request_from_json(Request, request), entities)
        return self.authorize_request(Request._from_json(request, schema), entities)

    def list_allowed(self, principal: Any, action: Any, resource_type: str, context: Any = None,
                     entities: Optional[Entities] = None) -> List[Match]:
        """list_allowed(principal, action, resource_type, context=None, entities=None) -> list[Match]

        The entities of type resource_type in `entities` that principal is allowed action on, in the
        store's order, each a charter.Match with uid, reasons and errors: what authorize() answers for
        each one (`charter query --principal P --resource-type T`). A query the schema or the store
        refuses (an unknown type, a principal not in the store) raises RequestError. The GIL is
        released while the engine decides."""
        query = _charter._query(self, True, principal, action, resource_type, context)
        return [_match(m) for m in _charter._list_page(self, entities, query, 0, sys.maxsize)[0]]

    def list_allowed_principals(self, principal_type: str, action: Any, resource: Any, context: Any = None,
                                entities: Optional[Entities] = None) -> List[Match]:
        """list_allowed_principals(principal_type, action, resource, context=None, entities=None) -> list[Match]

        The reverse of list_allowed: the entities of type principal_type allowed action on resource."""
        query = _charter._query(self, False, resource, action, principal_type, context)
        return [_match(m) for m in _charter._list_page(self, entities, query, 0, sys.maxsize)[0]]

    def iter_allowed(self, principal: Any, action: Any, resource_type: str, context: Any = None,
                     entities: Optional[Entities] = None, *, page_size: int = 256) -> Iterator[Match]:
        """iter_allowed(principal, action, resource_type, context=None, entities=None, *, page_size=256)
            -> Iterator[Match]

        list_allowed a page at a time, for large stores: each page of page_size matches is decided
        when the previous one is used up, with the GIL released. Stop iterating to stop deciding."""
        size = _page_size(page_size)
        return _Matches(self, entities, _charter._query(self, True, principal, action, resource_type, context), size)

    def iter_allowed_principals(self, principal_type: str, action: Any, resource: Any, context: Any = None,
                                entities: Optional[Entities] = None, *, page_size: int = 256) -> Iterator[Match]:
        """iter_allowed_principals(principal_type, action, resource, context=None, entities=None, *,
                                page_size=256) -> Iterator[Match]

        list_allowed_principals a page at a time."""
        size = _page_size(page_size)
        return _Matches(self, entities, _charter._query(self, False, resource, action, principal_type, context),
                        size)

    def _residual(self, resource_unknown: bool, known: Any, action: Any, type_: Any, context: Any,
                  entities: Any) -> Residual:
        if self._info()[2]:
            raise BundleError("a residual needs the policy text: this engine was loaded from a bundle, which "
                              "holds compiled code only (compile the text with charter.compile)")
        query = _charter._query(self, resource_unknown, known, action, type_, context)
        return Residual(_charter._residual(self, entities, query))

    def residual(self, principal: Any, action: Any, resource_type: str, context: Any = None,
                 entities: Optional[Entities] = None) -> Residual:
        """residual(principal, action, resource_type, context=None, entities=None) -> Residual

        The condition on an unknown resource of type resource_type under which principal is allowed
        action, from partial evaluation of the policy text (`charter query --residual`). Needs an
        engine compiled from text: one from a bundle raises BundleError."""
        return self._residual(True, principal, action, resource_type, context, entities)

    def residual_principals(self, principal_type: str, action: Any, resource: Any, context: Any = None,
                            entities: Optional[Entities] = None) -> Residual:
        """residual_principals(principal_type, action, resource, context=None, entities=None) -> Residual

        The condition on an unknown principal of type principal_type allowed action on resource."""
        return self._residual(False, resource, action, principal_type, context, entities)

    def __repr__(self) -> str:
        return f"<charter.Engine of {len(self)} policies>"


def _request_from_json(text: str, schema: Optional[Schema]) -> Request:
    if not isinstance(text, str):
        raise _type_error("request", "str", text)
    try:
        value = _json.loads(text)
    except ValueError as e:
        from ._errors import RequestError
        raise RequestError(f"request.json:{e.lineno}:{e.colno}: {e.msg}") from None
    if not isinstance(value, dict):
        raise _type_error("request", "a JSON object", value)
    from ._errors import RequestError
    for key in value:
        if key not in ("principal", "action", "resource", "context", "description"):
            raise RequestError(f'request: unknown key "{key}"')
    for key in ("principal", "action", "resource"):
        if key not in value:
            raise RequestError(f'request: missing "{key}"')
    return _charter._request_new(Request, value["principal"], value["action"], value["resource"],
                                 value.get("context"), schema)


Request._from_json = staticmethod(_request_from_json)  # type: ignore[attr-defined]


class EngineHandle:
    """EngineHandle(engine: Engine)

    The engine a service decides with now, replaceable while calls are in flight: each call
    decides with the engine current when it started (it reads the engine once, an atomic read,
    and decides with it alone)."""

    __slots__ = ("_engine", "_generation", "_lock")

    def __init__(self, engine: Engine) -> None:
        if not isinstance(engine, Engine):
            raise _type_error("engine", "charter.Engine", engine)
        self._engine = engine
        self._generation = 1
        self._lock = threading.Lock()

    def swap(self, engine: Engine) -> None:
        """swap(engine: Engine) -> None

        Installs `engine` for every call that starts from now on."""
        if not isinstance(engine, Engine):
            raise _type_error("engine", "charter.Engine", engine)
        with self._lock:
            self._engine = engine
            self._generation += 1

    def swap_bundle(self, bundle: Any, schema: Any = None) -> None:
        """swap_bundle(bundle, schema=None) -> None

        Loads and verifies a bundle (a path or bytes, as load_bundle) and installs it; on a fault
        (BundleError) the current engine stays."""
        self.swap(load_bundle(bundle, schema))

    @property
    def engine(self) -> Engine:
        """The current engine."""
        return self._engine

    @property
    def generation(self) -> int:
        """How many times an engine was installed (1 after construction)."""
        return self._generation

    def authorize(self, principal: Any, action: Any, resource: Any, context: Any = None,
                  entities: Optional[Entities] = None) -> Decision:
        return self._engine.authorize(principal, action, resource, context, entities)

    def authorize_request(self, request: Request, entities: Optional[Entities] = None) -> Decision:
        return self._engine.authorize_request(request, entities)

    def authorize_batch(self, requests: Any, entities: Optional[Entities] = None) -> List[Decision]:
        return self._engine.authorize_batch(requests, entities)

    def authorize_json(self, request: str, entities: Optional[Entities] = None) -> Decision:
        return self._engine.authorize_json(request, entities)

    def prepare(self, principal: Any, action: Any, resource: Any, context: Any = None) -> Request:
        return self._engine.prepare(principal, action, resource, context)

    def list_allowed(self, *args: Any, **kwargs: Any) -> List[Match]:
        return self._engine.list_allowed(*args, **kwargs)

    def list_allowed_principals(self, *args: Any, **kwargs: Any) -> List[Match]:
        return self._engine.list_allowed_principals(*args, **kwargs)

    def iter_allowed(self, *args: Any, **kwargs: Any) -> Iterator[Match]:
        return self._engine.iter_allowed(*args, **kwargs)

    def iter_allowed_principals(self, *args: Any, **kwargs: Any) -> Iterator[Match]:
        return self._engine.iter_allowed_principals(*args, **kwargs)

    def residual(self, *args: Any, **kwargs: Any) -> Residual:
        return self._engine.residual(*args, **kwargs)

    def residual_principals(self, *args: Any, **kwargs: Any) -> Residual:
        return self._engine.residual_principals(*args, **kwargs)


for _name in ("authorize", "authorize_request", "authorize_batch", "authorize_json", "prepare", "list_allowed",
              "list_allowed_principals", "iter_allowed", "iter_allowed_principals", "residual",
              "residual_principals"):
    getattr(EngineHandle, _name).__doc__ = getattr(Engine, _name).__doc__
del _name


def compile(policies: str, schema: Any = None, *, links: Optional[str] = None,  # noqa: A001 - the API's name
            source_name: str = "policies.cedar") -> Engine:
    """compile(policies, schema=None, *, links=None, source_name='policies.cedar') -> Engine

    Compiles policy text (Cedar's text or JSON policy format) into an Engine.

    With a schema (a charter.Schema or its text), the policies are validated against it and compiled
    typed; the engine then reads requests with the schema, and takes only entities read with it.
    links: template links as JSON text, in the Cedar CLI's --template-linked form.
    A fault raises PolicyError (SchemaError for the schema)."""
    if not isinstance(policies, str):
        raise _type_error("policies", "str", policies)
    return _charter._compile(Engine, policies, _schema(schema, "schema"), links, source_name)


def build(policies: str, schema: Any = None, *, links: Optional[str] = None,
          source_name: str = "policies.cedar") -> bytes:
    """build(policies, schema=None, *, links=None, source_name='policies.cedar') -> bytes

    Compiles policy text as compile() does and returns the bundle's bytes (what `charter build`
    writes), for load_bundle() here or elsewhere."""
    if not isinstance(policies, str):
        raise _type_error("policies", "str", policies)
    return _charter._build(policies, _schema(schema, "schema"), links, source_name)


def load_bundle(bundle: Any, schema: Any = None) -> Engine:
    """load_bundle(bundle, schema=None) -> Engine

    Loads a bundle built by `charter build`, from a path or from bytes, and verifies it.

    A bundle compiled with a schema needs that schema. A fault raises BundleError."""
    typed = _schema(schema, "schema")
    if isinstance(bundle, (bytes, bytearray, memoryview)):
        data, is_path, name = bytes(bundle), False, "bundle"
    elif isinstance(bundle, str) or hasattr(bundle, "__fspath__"):
        path = os.fspath(bundle)
        data = path if isinstance(path, bytes) else path.encode("utf-8", "surrogateescape")
        is_path, name = True, os.fsdecode(path)
    else:
        raise _type_error("path", "a path (str or os.PathLike)", bundle)
    try:
        fingerprint = _charter._bundle_fingerprint(data, is_path)
    except BundleError as e:
        text = str(e)
        if name not in text:
            raise BundleError(f"{name}: {text}", code=e.code, status=e.status) from None
        raise
    if fingerprint and typed is None:
        raise BundleError(f"{name}: the bundle was compiled with a schema ({fingerprint}): pass it as schema=, "
                          "so that requests and entities are read with it")
    if typed is not None and fingerprint != typed.fingerprint:
        if not fingerprint:
            raise BundleError(f"{name}: the bundle was compiled without a schema; compile it with one to use "
                              "schema=")
        raise BundleError(f"{name}: the bundle was compiled with another schema ({fingerprint}); the schema "
                          f"given is {typed.fingerprint}")
    return _charter._load_bundle(Engine, data, is_path, typed)


def schedule(state: Any, hyperpod: bool = False, scenario: Optional[str] = None) -> Dict[str, Any]:
    """schedule(state, hyperpod=False, scenario=None) -> dict

    Runs one Kueue scheduling cycle over a state (docs/scheduling.md), a dict or its JSON text, and
    returns the cycle's result as a dict (`charter schedule --format json`). hyperpod=True reads
    HyperPod task governance objects instead. A fault raises ScheduleError."""
    if isinstance(state, dict):
        text = _json.dumps(state)
    elif isinstance(state, str):
        text = state
    else:
        raise _type_error("state", "a dict or JSON text (str)", state)
    if scenario is not None and not isinstance(scenario, str):
        raise _type_error("scenario", "str", scenario)
    return _json.loads(_charter._schedule(text, bool(hyperpod), scenario))


_charter._register(EntityUid, Request)
