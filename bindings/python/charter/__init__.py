"""Charter: Cedar-exact authorization and Kueue-exact scheduling, embedded.

    import charter
    engine = charter.compile('permit (principal, action, resource);')
    entities = charter.Entities.from_json('[]')
    decision = engine.authorize('User::"alice"', 'Action::"view"', 'Doc::"d1"', entities=entities)
    decision.allowed, decision.decision, decision.reasons, decision.errors

The package is built on Charter's C API (libcharter.so), as the Go and Lua
bindings are: the extension charter._charter, in C, calls the C API alone,
and the classes here (charter/_api.py) give it its Python shape.
docs/embedding.md, "Python", documents it. Every error Charter raises is a
charter.Error.
"""

from ._errors import (
    BundleError,
    Diagnostic,
    EntitiesError,
    Error,
    PolicyError,
    RequestError,
    ScheduleError,
    SchemaError,
)
from ._api import (
    Decision,
    Engine,
    EngineHandle,
    Entities,
    EntityUid,
    Match,
    Residual,
    Request,
    Schema,
    build,
    c_api_version,
    compile,
    load_bundle,
    schedule,
    version,
)

__version__ = version()

__all__ = [
    "BundleError",
    "Decision",
    "Diagnostic",
    "Engine",
    "EngineHandle",
    "Entities",
    "EntitiesError",
    "EntityUid",
    "Error",
    "Match",
    "PolicyError",
    "Request",
    "RequestError",
    "Residual",
    "ScheduleError",
    "Schema",
    "SchemaError",
    "build",
    "c_api_version",
    "compile",
    "load_bundle",
    "schedule",
    "version",
]

# The classes and functions name this package as their module, where users
# find them (repr, help(), pickling of the errors).
for _name in __all__:
    _obj = globals()[_name]
    if getattr(_obj, "__module__", None) in ("charter._charter", "charter._errors", "charter._api"):
        try:
            _obj.__module__ = __name__
        except (AttributeError, TypeError):
            pass
del _name, _obj
