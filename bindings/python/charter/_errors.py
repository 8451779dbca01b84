"""Charter's exceptions. The extension raises them; they live here, in Python,
so that they are ordinary exception classes (picklable, subclassable).

Charter reports a fault in its input as one line, ``SOURCE:LINE:COL: message``
(``policies.cedar:3:44: error[CH0101]: unexpected `&&```). An Error keeps that
line as its ``str()`` and splits it into ``source``, ``line``, ``column`` and
``message``; a fault without a position has ``None`` for those three.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional, Sequence, Tuple

__all__ = [
    "Diagnostic",
    "Error",
    "PolicyError",
    "SchemaError",
    "EntitiesError",
    "RequestError",
    "BundleError",
    "ScheduleError",
]

# "SOURCE:LINE:COL: " at the start of the first line; SOURCE is the shortest
# prefix that is followed by the two numbers, so that a path holding colons
# still reads.
_POSITION = re.compile(r"(.*?):(\d+):(\d+): ")
# What Charter's diagnostics put before their message: "error[CH0101]: ".
_SEVERITY = re.compile(r"(error|warning)\[([A-Z]+[0-9]+)\]: ")


class Diagnostic(NamedTuple):
    """One fault in policy or schema text, as Charter's diagnostics give it."""

    severity: str  # "error" or "warning"
    code: str  # stable, e.g. "CH0101" (docs/diagnostics.md)
    message: str  # one line, lowercase, names in backticks
    source: str  # the source's name
    line: int  # 1-based
    column: int  # 1-based, in Unicode scalar values
    help: str  # a hint, or ""


class Error(Exception):
    """Base class of every error Charter raises.

    Attributes:
        message: the text without its position (``error[CODE]: `` removed too).
        source: the name of the input at fault (``policies.cedar``), or None.
        line, column: 1-based position of the fault in that input, or None.
        code: Charter's diagnostic code (``CH0101``) when the fault has one.
        diagnostics: every fault found, for policy and schema text (a tuple
            of Diagnostic; empty for other errors).
        detail: the fault in full, for people: for policy and schema text,
            every diagnostic with its source line and underline; otherwise
            the text itself.
        status: the C API's name of the failure ("invalid_argument",
            "not_found", "limit_exceeded", ...; charter_status_name), or None
            for a fault the binding found itself.
    """

    message: str
    source: Optional[str]
    line: Optional[int]
    column: Optional[int]
    code: Optional[str]
    diagnostics: Tuple[Diagnostic, ...]
    detail: str
    status: Optional[str]

    def __init__(self, text: str, *, code: Optional[str] = None,
                 diagnostics: Sequence[Diagnostic] = (), detail: Optional[str] = None,
                 source: Optional[str] = None, line: Optional[int] = None,
                 column: Optional[int] = None, status: Optional[str] = None) -> None:
        super().__init__(text)
        self.detail = text if detail is None else detail
        self.status = status
        first = text.split("\n", 1)[0]
        rest = text[len(first):]
        match = _POSITION.match(first)
        if match:
            self.source = match.group(1)
            self.line = int(match.group(2))
            self.column = int(match.group(3))
            first = first[match.end():]
        else:
            self.source = None
            self.line = None
            self.column = None
        severity = _SEVERITY.match(first)
        if severity:
            if code is None:
                code = severity.group(2)
            first = first[severity.end():]
        if source is not None and line:
            # Where the library says the fault is (the input's name may
            # itself look like "NAME:LINE:COL").
            self.source, self.line, self.column = source, line, column
        self.message = first + rest
        self.code = code
        self.diagnostics = tuple(diagnostics)

    def __reduce__(self):
        return (_rebuild, (type(self), str(self), self.code, self.diagnostics, self.detail, self.status))


def _rebuild(cls, text, code, diagnostics, detail=None, status=None):
    return cls(text, code=code, diagnostics=diagnostics, detail=detail, status=status)


class PolicyError(Error):
    """Policy text that does not compile (or, with a schema, does not validate)."""


class SchemaError(Error):
    """A schema that does not parse."""


class EntitiesError(Error):
    """Entities that do not read, or that do not fit the engine's schema."""


class RequestError(Error):
    """A request that does not read: an entity reference, a context value, or,
    with a schema, a request that does not conform to it."""


class BundleError(Error):
    """A bundle that cannot be read or does not verify."""


class ScheduleError(Error):
    """A scheduling state that does not read."""
