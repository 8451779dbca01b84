"""Charter: Cedar-exact authorization and Kueue-exact scheduling, embedded.

    import charter
    engine = charter.compile('permit (principal, action, resource);')
    entities = charter.Entities.from_json('[]')
    decision = engine.authorize('User::"alice"', 'Action::"view"', 'Doc::"d1"', entities=entities)
    decision.allowed, decision.decision, decision.reasons, decision.errors

The package wraps Charter's C++ library (libcharter.so); docs/embedding.md,
"Python", documents it. Every error Charter raises is a charter.Error.
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
from ._charter import (
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
    "compile",
    "load_bundle",
    "schedule",
    "version",
]

# The extension's classes and functions name this package as their module,
# where users find them (repr, help(), pickling of the errors).
for _name in __all__:
    _obj = globals()[_name]
    if getattr(_obj, "__module__", None) in ("charter._charter", "charter._errors"):
        try:
            _obj.__module__ = __name__
        except (AttributeError, TypeError):
            pass
del _name, _obj
