"""The Python binding stands on the C API alone, and exposes all of it:

- every function the C API declares (bindings/c/include/charter.h) is
  called by the extension (bindings/python/_charter.c), or is in NOT_CALLED
  below with the Python call that gives the same and why it is not used;
- the extension includes no header but Python's, the C standard library's
  and charter.h, and no C++ source is part of the binding;
- docs/embedding.md's table "The C API in Python, Go and Lua" has a row for
  every function, naming the Python call that exposes it.

Grep-based: a new C API function fails this test until the binding calls
it (or NOT_CALLED says why not) and the table lists it."""

import re

from conftest import SOURCE_DIR

HEADER = SOURCE_DIR / "bindings" / "c" / "include" / "charter.h"
EXTENSION = SOURCE_DIR / "bindings" / "python" / "_charter.c"
EMBEDDING = SOURCE_DIR / "docs" / "embedding.md"

# C API functions the extension does not call, each with the call that
# covers what it does. Kept exact: a name here must be a C API function the
# extension does not call.
NOT_CALLED = {
    # Superseded by their _with forms, which take a schema handle and the
    # names Python's messages use ("context", "requests[3].context").
    "charter_engine_compile": "charter_engine_compile_with (charter.compile)",
    "charter_compile_bundle": "charter_compile_bundle_with (charter.build)",
    "charter_entities_from_json": "charter_entities_from_json_with (Entities.from_json)",
    "charter_request_new": "charter_uid_parse + charter_request_new_with (Engine.authorize, Request)",
    "charter_request_new_uids": "charter_request_new_with (Engine.authorize, Request)",
    "charter_query_resources": "charter_query_new (Engine.list_allowed, iter_allowed, residual)",
    "charter_query_principals": "charter_query_new (Engine.list_allowed_principals, residual_principals)",
    "charter_schedule_cycle": "charter_schedule_cycle_with (charter.schedule)",
    # A Decision outlives the context it was read from: Decision.to_json
    # writes the same JSON from the Decision's values.
    "charter_eval_context_decision_json": "Decision.to_json",
    # charter.EngineHandle swaps charter.Engine objects, each of which keeps
    # its schema (requests are read with it): a call reads the current one
    # once and decides with it alone, as charter_engine_handle_authorize does.
    "charter_engine_handle_new": "EngineHandle(engine)",
    "charter_engine_handle_swap": "EngineHandle.swap",
    "charter_engine_handle_swap_bundle": "EngineHandle.swap_bundle",
    "charter_engine_handle_generation": "EngineHandle.generation",
    "charter_engine_handle_authorize": "EngineHandle.authorize",
    "charter_engine_handle_free": "EngineHandle (Python memory)",
    # Values: the binding knows the kind of each value it makes, and a
    # context's JSON is json.dumps(context), which reads as the same request.
    "charter_value_get_kind": "engine.authorize (the binding made the value)",
    "charter_value_json": "json.dumps(context) as the context",
    # Entities built in code: Entities.extend takes them as JSON text.
    "charter_entities_extend_values": "Entities.extend(text)",
}


def c_api_functions():
    text = HEADER.read_text()
    names = re.findall(r"CHARTER_C_EXPORT[^;{]*?\b(charter_\w+)\s*\(", text, re.S)
    assert len(names) == len(set(names))
    return names


def test_every_c_api_function_is_called_or_accounted_for():
    functions = c_api_functions()
    assert len(functions) > 90  # the reader found them
    source = EXTENSION.read_text()
    called = {f for f in functions if re.search(rf"\b{f}\b", source)}
    missing = [f for f in functions if f not in called and f not in NOT_CALLED]
    assert missing == [], f"C API functions no Python call exposes: {missing}"
    stale = [f for f in NOT_CALLED if f not in functions or f in called]
    assert stale == [], f"NOT_CALLED names functions that are called, or not in the C API: {stale}"


def test_the_extension_is_c_over_the_c_api_only():
    source = EXTENSION.read_text()
    includes = re.findall(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', source, re.M)
    allowed = {"Python.h", "charter.h", "stdarg.h", "stdint.h", "stdio.h", "string.h", "stddef.h", "stdlib.h"}
    assert set(includes) <= allowed, set(includes) - allowed
    binding = SOURCE_DIR / "bindings" / "python"
    cxx = [p for p in binding.rglob("*") if p.suffix in (".cc", ".cpp", ".cxx", ".hpp", ".hh")]
    assert cxx == []


def test_the_docs_table_lists_every_function():
    text = EMBEDDING.read_text()
    start = text.index("## The C API in Python, Go and Lua")
    table = text[start:text.index("\n#", start + 1)]
    rows = dict(re.findall(r"^\| `(charter_\w+)` \| ([^|]+) \|", table, re.M))
    functions = c_api_functions()
    assert sorted(set(functions) - set(rows)) == []
    assert sorted(set(rows) - set(functions)) == []
    for name, python in rows.items():
        assert python.strip() not in ("", "—", "-"), f"{name}: no Python call named"
