// charter._charter: the Python binding of Charter's public C++ API
// (engine/include/charter/). The package `charter` (charter/__init__.py)
// re-exports it; charter/__init__.pyi types it; docs/embedding.md,
// "Embedding Charter in Python", documents it.
//
// Conversions are written out here rather than left to pybind11's casters,
// so that a wrong Python type is a TypeError naming the argument and what it
// takes, and a fault in a value Charter reads is a charter.Error subclass
// (charter/_errors.py) carrying Charter's "SOURCE:LINE:COL: message".
//
// Deciding releases the GIL: Engine::Authorize reads only C++ objects (the
// engine, the entities, the requests built before the release), which are
// immutable and kept alive by the Python objects the caller passed.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "charter/charter.h"
#include "charter/query.h"
#include "charter_support/strings.h"
#include "charter/schedule.h"
#include "charter/schema.h"

namespace py = pybind11;

namespace charter::python {
namespace {

using support::Cat;
using support::CatAppend;
using support::ToStd;

// Context values nest at most this deep (Charter's entity reader allows 64).
constexpr int kMaxNesting = 64;

// --- errors --------------------------------------------------------------

std::string TypeName(py::handle obj) { return Py_TYPE(obj.ptr())->tp_name; }

[[noreturn]] void ThrowTypeError(std::string_view what, std::string_view expected, py::handle got) {
  throw py::type_error(Cat(what, ": expected ", expected, ", got ", TypeName(got)));
}

// Raises charter.<kind>(text, code=..., diagnostics=...).
[[noreturn]] void Raise(const char* kind, std::string_view text, py::object code = py::none(),
                        py::object diagnostics = py::tuple()) {
  py::object type = py::module_::import("charter._errors").attr(kind);
  py::object exc = type(py::str(text.data(), text.size()), py::arg("code") = code,
                        py::arg("diagnostics") = diagnostics);
  PyErr_SetObject(type.ptr(), exc.ptr());
  throw py::error_already_set();
}

// A failed status of a JSON reader: its message, and the code of the fault
// it carries.
[[noreturn]] void RaiseStatus(const char* kind, const absl::Status& status) {
  py::object code = py::none();
  if (std::optional<Diagnostic> d = DiagnosticOf(status)) code = py::str(d->code);
  Raise(kind, ToStd(status.message()), code);
}

// Every diagnostic, as charter._errors.Diagnostic values.
py::tuple DiagnosticTuple(const Diagnostics& diagnostics, const SourceFile& source) {
  py::object make = py::module_::import("charter._errors").attr("Diagnostic");
  py::list out;
  for (const Diagnostic& d : diagnostics.items()) {
    SourceFile::Position p = source.PositionOf(d.span.begin);
    out.append(make(d.severity == Severity::kError ? "error" : "warning", d.code, d.message, source.name(),
                    p.line, p.column, d.help));
  }
  return py::tuple(out);
}

// The first error's code, for Error.code.
py::object FirstErrorCode(const Diagnostics& diagnostics) {
  for (const Diagnostic& d : diagnostics.items()) {
    if (d.severity == Severity::kError) return py::str(d.code);
  }
  return py::none();
}

// "SOURCE:LINE:COL: message" without its position; the text itself when it
// has none.
std::string_view WithoutPosition(std::string_view text) {
  // SOURCE is the shortest prefix followed by ":LINE:COL: ".
  for (size_t colon = text.find(':'); colon != std::string_view::npos; colon = text.find(':', colon + 1)) {
    size_t i = colon + 1;
    int numbers = 0;
    while (numbers < 2) {
      size_t digits = i;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
      if (i == digits || i >= text.size() || text[i] != ':') break;
      ++i;
      ++numbers;
    }
    if (numbers == 2 && i < text.size() && text[i] == ' ') return text.substr(i + 1);
  }
  return text;
}

// --- values from Python --------------------------------------------------

// The UTF-8 text of a str; valid while the str lives. A str with lone
// surrogates raises UnicodeEncodeError.
std::string_view Utf8(py::handle obj) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(obj.ptr(), &size);
  if (data == nullptr) throw py::error_already_set();
  return std::string_view(data, static_cast<size_t>(size));
}

std::string_view Str(py::handle obj, std::string_view what) {
  if (!PyUnicode_Check(obj.ptr())) ThrowTypeError(what, "str", obj);
  return Utf8(obj);
}

// A str or os.PathLike, as a path.
std::string Path(py::handle obj, std::string_view what) {
  if (PyUnicode_Check(obj.ptr())) return std::string(Utf8(obj));
  if (PyObject_HasAttrString(obj.ptr(), "__fspath__")) {
    py::object path = py::module_::import("os").attr("fspath")(obj);
    if (PyUnicode_Check(path.ptr())) return std::string(Utf8(path));
    if (PyBytes_Check(path.ptr())) return std::string(PyBytes_AS_STRING(path.ptr()), PyBytes_GET_SIZE(path.ptr()));
  }
  ThrowTypeError(what, "a path (str or os.PathLike)", obj);
}

// Names a value in messages: a part of a request ("principal",
// "requests[3].context"), then, inside a context, its keys and indices
// ("context.tags[2]"). Written out only when a message needs it, so that
// the calls that succeed build no strings.
class Where {
 public:
  Where(size_t request, std::string_view field) : request_(request), field_(field) {}
  static constexpr size_t kAlone = SIZE_MAX;  // not in a batch

  void Key(std::string_view key) { path_.push_back(Segment{key, 0, Segment::kKey}); }
  void Index(size_t i) { path_.push_back(Segment{{}, i, Segment::kIndex}); }
  void SetElement() { path_.push_back(Segment{{}, 0, Segment::kSetElement}); }
  void Pop() { path_.pop_back(); }
  size_t depth() const { return path_.size(); }

  std::string Str() const {
    std::string out = request_ == kAlone ? std::string(field_) : Cat("requests[", request_, "].", field_);
    for (const Segment& s : path_) {
      switch (s.kind) {
        case Segment::kKey:
          CatAppend(&out, ".", s.key);
          break;
        case Segment::kIndex:
          CatAppend(&out, "[", s.index, "]");
          break;
        case Segment::kSetElement:
          out += "{}";  // an element of a set: sets have no order to name it by
          break;
      }
    }
    return out;
  }

 private:
  struct Segment {
    std::string_view key;
    size_t index;
    enum { kKey, kIndex, kSetElement } kind;
  };
  size_t request_;
  std::string_view field_;
  std::vector<Segment> path_;
};

// An entity uid from its parts, its type checked as the engine's parser
// checks the text form's ('Type::"id"'): names joined by `::`, none a
// reserved word (`if`, `in`, `true`, ...). `where` (may be empty) goes
// before the parser's words in the RequestError.
EntityUid CheckedUid(std::string type, std::string id, std::string_view where) {
  EntityUid uid{std::move(type), std::move(id)};
  absl::StatusOr<EntityUid> checked = EntityUid::Parse(uid.ToString());
  if (!checked.ok()) {
    Raise("RequestError", where.empty() ? std::string(ToStd(checked.status().message()))
                                        : Cat(where, ": ", checked.status().message()));
  }
  return uid;
}

// An entity reference: 'Type::"id"', {"type": ..., "id": ...} (or Cedar's
// {"__entity": {...}}), or a charter.EntityUid.
EntityUid ToUid(py::handle obj, const Where& where) {
  PyObject* o = obj.ptr();
  if (PyUnicode_Check(o)) {
    absl::StatusOr<EntityUid> uid = EntityUid::Parse(Utf8(obj));
    if (!uid.ok()) Raise("RequestError", Cat(where.Str(), ": ", uid.status().message()));
    return *std::move(uid);
  }
  if (PyDict_Check(o)) {
    PyObject* inner = PyDict_GetItemString(o, "__entity");  // borrowed
    if (inner != nullptr && PyDict_Size(o) == 1) {
      if (!PyDict_Check(inner)) {
        ThrowTypeError(Cat(where.Str(), ".__entity"), "a dict {'type': ..., 'id': ...}", inner);
      }
      o = inner;
    }
    PyObject* type = PyDict_GetItemString(o, "type");
    PyObject* id = PyDict_GetItemString(o, "id");
    if (type == nullptr || id == nullptr || PyDict_Size(o) != 2) {
      Raise("RequestError", Cat(where.Str(), ": an entity reference is a dict with exactly the keys "
                                             "\"type\" and \"id\""));
    }
    if (!PyUnicode_Check(type)) ThrowTypeError(Cat(where.Str(), "[\"type\"]"), "str", type);
    if (!PyUnicode_Check(id)) ThrowTypeError(Cat(where.Str(), "[\"id\"]"), "str", id);
    return CheckedUid(std::string(Utf8(type)), std::string(Utf8(id)), where.Str());
  }
  if (py::isinstance<EntityUid>(obj)) return obj.cast<const EntityUid&>();
  ThrowTypeError(where.Str(),
                 "an entity reference (a str 'Type::\"id\"', a dict {'type': ..., 'id': ...} or "
                 "a charter.EntityUid)",
                 obj);
}

// Appends a Python value as Cedar's JSON value encoding: bool, int (64-bit),
// str, list/tuple/set/frozenset (a set), dict with str keys (a record, or
// Cedar's {"__entity": ...} and {"__extn": ...} escapes), EntityUid (an
// entity). `where` names the value in messages.
void AppendJson(std::string* out, py::handle value, Where* where) {
  PyObject* v = value.ptr();
  if (where->depth() >= kMaxNesting) {
    Raise("RequestError", Cat(where->Str(), ": values nest deeper than ", kMaxNesting, " levels"));
  }
  if (PyBool_Check(v)) {
    out->append(v == Py_True ? "true" : "false");
  } else if (PyLong_Check(v)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow != 0) {
      Raise("RequestError", Cat(where->Str(), ": ", std::string(py::str(value)),
                                " does not fit in 64 bits (a Cedar Long)"));
    }
    if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
    CatAppend(out, x);
  } else if (PyUnicode_Check(v)) {
    AppendJsonQuoted(out, Utf8(value));
  } else if (PyDict_Check(v)) {
    out->push_back('{');
    Py_ssize_t pos = 0;
    PyObject* key = nullptr;
    PyObject* item = nullptr;
    bool first = true;
    while (PyDict_Next(v, &pos, &key, &item)) {
      if (!PyUnicode_Check(key)) ThrowTypeError(Cat(where->Str(), " (a key)"), "str", key);
      std::string_view name = Utf8(key);
      if (!first) out->push_back(',');
      first = false;
      AppendJsonQuoted(out, name);
      out->push_back(':');
      where->Key(name);
      AppendJson(out, item, where);
      where->Pop();
    }
    out->push_back('}');
  } else if (PyList_Check(v) || PyTuple_Check(v)) {
    out->push_back('[');
    const bool list = PyList_Check(v);
    for (Py_ssize_t i = 0; i < (list ? PyList_GET_SIZE(v) : PyTuple_GET_SIZE(v)); ++i) {
      if (i > 0) out->push_back(',');
      where->Index(static_cast<size_t>(i));
      AppendJson(out, list ? PyList_GET_ITEM(v, i) : PyTuple_GET_ITEM(v, i), where);
      where->Pop();
    }
    out->push_back(']');
  } else if (PyAnySet_Check(v)) {
    out->push_back('[');
    py::iterator it = py::reinterpret_borrow<py::object>(value).begin();
    bool first = true;
    for (; it != py::iterator::sentinel(); ++it) {
      if (!first) out->push_back(',');
      first = false;
      where->SetElement();
      AppendJson(out, *it, where);
      where->Pop();
    }
    out->push_back(']');
  } else if (py::isinstance<EntityUid>(value)) {
    const EntityUid& uid = value.cast<const EntityUid&>();
    out->append("{\"__entity\":{\"type\":");
    AppendJsonQuoted(out, uid.type);
    out->append(",\"id\":");
    AppendJsonQuoted(out, uid.id);
    out->append("}}");
  } else if (PyFloat_Check(v)) {
    ThrowTypeError(where->Str(),
                   "a Cedar value (Cedar has no floating-point numbers: use an int, or a decimal as "
                   "{'__extn': {'fn': 'decimal', 'arg': '1.5'}})",
                   value);
  } else {
    ThrowTypeError(where->Str(), "a Cedar value (bool, int, str, list, set, dict or charter.EntityUid)", value);
  }
}

// A Schema from a charter.Schema or schema text.
Schema ToSchema(py::handle obj, std::string_view what) {
  if (py::isinstance<Schema>(obj)) return obj.cast<const Schema&>();
  if (!PyUnicode_Check(obj.ptr())) ThrowTypeError(what, "a charter.Schema or schema text (str)", obj);
  std::string_view text = Utf8(obj);
  const size_t first = text.find_first_not_of(" \t\r\n");
  const bool json = first != std::string_view::npos && text[first] == '{';
  SourceFile source(json ? "schema.json" : "schema.cedarschema", std::string(text));
  Diagnostics diagnostics;
  absl::StatusOr<Schema> schema = Schema::Parse(source, {}, &diagnostics);
  if (!schema.ok()) {
    Raise("SchemaError", ToStd(schema.status().message()), FirstErrorCode(diagnostics),
          DiagnosticTuple(diagnostics, source));
  }
  return *std::move(schema);
}

// --- charter.Decision ----------------------------------------------------
//
// A plain CPython type rather than a pybind11 class: a decision is made for
// every call, and a pybind11 instance (a C++ holder, an entry in pybind11's
// instance registry) costs more than the decision itself. It holds Python
// values only: `allowed`, the reasons as a tuple of str and the errors as a
// tuple of (policy_id, message) tuples; tuples of str cannot form a cycle, so
// the type needs no GC support.

struct DecisionObject {
  PyObject_HEAD
  PyObject* reasons;  // tuple of str
  PyObject* errors;   // tuple of (str, str)
  bool allowed;
};

// Set once, when the module is imported (PyInit runs once a process).
PyTypeObject* decision_type = nullptr;

void DecisionDealloc(PyObject* self) {
  auto* d = reinterpret_cast<DecisionObject*>(self);
  Py_XDECREF(d->reasons);
  Py_XDECREF(d->errors);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

// A new Decision; steals `reasons` and `errors`.
py::object NewDecision(bool allowed, PyObject* reasons, PyObject* errors) {
  DecisionObject* d = PyObject_New(DecisionObject, decision_type);
  if (d == nullptr) {
    Py_DECREF(reasons);
    Py_DECREF(errors);
    throw py::error_already_set();
  }
  d->allowed = allowed;
  d->reasons = reasons;
  d->errors = errors;
  return py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(d));
}

PyObject* NewStr(std::string_view s) {
  PyObject* str = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (str == nullptr) throw py::error_already_set();
  return str;
}

PyObject* NewError(std::string_view policy_id, std::string_view message) {
  PyObject* pair = PyTuple_New(2);
  if (pair == nullptr) throw py::error_already_set();
  PyTuple_SET_ITEM(pair, 0, NewStr(policy_id));
  PyTuple_SET_ITEM(pair, 1, NewStr(message));
  return pair;
}

PyObject* NewTuple(size_t n) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(n));
  if (t == nullptr) throw py::error_already_set();
  return t;
}

// The last decision made with `context`.
py::object DecisionOf(const EvalContext& context) {
  py::object reasons = py::reinterpret_steal<py::object>(NewTuple(context.reasons().size()));
  for (size_t i = 0; i < context.reasons().size(); ++i) {
    PyTuple_SET_ITEM(reasons.ptr(), static_cast<Py_ssize_t>(i), NewStr(context.reasons()[i]));
  }
  py::object errors = py::reinterpret_steal<py::object>(NewTuple(context.errors().size()));
  for (size_t i = 0; i < context.errors().size(); ++i) {
    const PolicyErrorView& e = context.errors()[i];
    PyTuple_SET_ITEM(errors.ptr(), static_cast<Py_ssize_t>(i), NewError(e.policy_id, e.message));
  }
  return NewDecision(context.allowed(), reasons.release().ptr(), errors.release().ptr());
}

const DecisionObject* AsDecision(PyObject* self) { return reinterpret_cast<const DecisionObject*>(self); }

// The C++ Decision, for to_json().
Decision ToCppDecision(PyObject* self) {
  const DecisionObject* d = AsDecision(self);
  Decision out;
  out.allowed = d->allowed;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(d->reasons); ++i) {
    out.reasons.emplace_back(Utf8(PyTuple_GET_ITEM(d->reasons, i)));
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(d->errors); ++i) {
    PyObject* pair = PyTuple_GET_ITEM(d->errors, i);
    out.errors.push_back(PolicyError{std::string(Utf8(PyTuple_GET_ITEM(pair, 0))),
                                     std::string(Utf8(PyTuple_GET_ITEM(pair, 1))), Span{}});
  }
  return out;
}

// CPython calls these; a C++ exception must not cross back into it.
template <typename F>
PyObject* Guard(F f) {
  try {
    return f();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyObject* DecisionAllowed(PyObject* self, void*) { return PyBool_FromLong(AsDecision(self)->allowed); }
PyObject* DecisionName(PyObject* self, void*) {
  return PyUnicode_InternFromString(AsDecision(self)->allowed ? "allow" : "deny");
}
PyObject* DecisionReasons(PyObject* self, void*) { return PySequence_List(AsDecision(self)->reasons); }
PyObject* DecisionErrors(PyObject* self, void*) { return PySequence_List(AsDecision(self)->errors); }

int DecisionBool(PyObject* self) { return AsDecision(self)->allowed ? 1 : 0; }

PyObject* DecisionRepr(PyObject* self) {
  const DecisionObject* d = AsDecision(self);
  return PyUnicode_FromFormat("Decision(decision='%s', reasons=%R, errors=%R)", d->allowed ? "allow" : "deny",
                              py::reinterpret_steal<py::object>(PySequence_List(d->reasons)).ptr(),
                              py::reinterpret_steal<py::object>(PySequence_List(d->errors)).ptr());
}

PyObject* DecisionCompare(PyObject* a, PyObject* b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, decision_type)) Py_RETURN_NOTIMPLEMENTED;
  const DecisionObject* x = AsDecision(a);
  const DecisionObject* y = AsDecision(b);
  int equal = x->allowed == y->allowed;
  if (equal) equal = PyObject_RichCompareBool(x->reasons, y->reasons, Py_EQ);
  if (equal == 1) equal = PyObject_RichCompareBool(x->errors, y->errors, Py_EQ);
  if (equal < 0) return nullptr;
  return PyBool_FromLong(op == Py_EQ ? equal : !equal);
}

PyObject* DecisionToJson(PyObject* self, PyObject*) {
  return Guard([&] { return py::str(ToCppDecision(self).ToJson()).release().ptr(); });
}

PyGetSetDef decision_getset[] = {
    {"allowed", DecisionAllowed, nullptr, "Whether the request is allowed.", nullptr},
    {"decision", DecisionName, nullptr, "'allow' or 'deny'.", nullptr},
    {"reasons", DecisionReasons, nullptr,
     "The determining policies' ids (a new list): the satisfied forbids when any is satisfied, else the\n"
     "satisfied permits (empty on default deny), in policy-set order.",
     nullptr},
    {"errors", DecisionErrors, nullptr,
     "The policies that erred and were skipped, as (policy_id, message) pairs (a new list).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyMethodDef decision_methods[] = {
    {"to_json", DecisionToJson, METH_NOARGS,
     "The decision as Cedar's JSON object: {\"decision\", \"reasons\", \"errors\": [{\"policy\", \"message\"}]}."},
    {nullptr, nullptr, 0, nullptr},
};

void AddDecisionType(py::module_& m) {
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(DecisionDealloc)},
      {Py_tp_repr, reinterpret_cast<void*>(DecisionRepr)},
      {Py_tp_richcompare, reinterpret_cast<void*>(DecisionCompare)},
      {Py_tp_hash, reinterpret_cast<void*>(PyObject_HashNotImplemented)},
      {Py_nb_bool, reinterpret_cast<void*>(DecisionBool)},
      {Py_tp_getset, decision_getset},
      {Py_tp_methods, decision_methods},
      {Py_tp_doc, const_cast<char*>("The answer to one request: allowed, decision, reasons and errors. Its truth\n"
                                    "value is `allowed`.")},
      {0, nullptr},
  };
  unsigned int flags = Py_TPFLAGS_DEFAULT;
#ifdef Py_TPFLAGS_IMMUTABLETYPE
  flags |= Py_TPFLAGS_IMMUTABLETYPE;
#endif
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
  flags |= Py_TPFLAGS_DISALLOW_INSTANTIATION;
#endif
  static PyType_Spec spec = {"charter.Decision", sizeof(DecisionObject), 0, flags, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (type == nullptr) throw py::error_already_set();
  decision_type = reinterpret_cast<PyTypeObject*>(type);
  m.add_object("Decision", type);  // the module keeps the reference
}

// --- the objects ---------------------------------------------------------

// Evaluation contexts for reuse: a call takes one, decides with it (which,
// once it has grown, allocates nothing) and gives it back. A context kept
// here keeps the entity store of its last call alive until its next one
// (at most kKept stores an engine).
class ContextPool {
 public:
  std::unique_ptr<EvalContext> Take() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        std::unique_ptr<EvalContext> context = std::move(free_.back());
        free_.pop_back();
        return context;
      }
    }
    return std::make_unique<EvalContext>();
  }
  void Give(std::unique_ptr<EvalContext> context) {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.size() < kKept) free_.push_back(std::move(context));
  }

 private:
  static constexpr size_t kKept = 16;  // about the threads that decide at once
  std::mutex mu_;
  std::vector<std::unique_ptr<EvalContext>> free_;
};

// A compiler warning, kept for Engine.warnings.
struct Warning {
  std::string code, message, source, help;
  uint32_t line, column;
};

// The policy text an engine was compiled from, for residuals: read again by
// a PartialEvaluator on the first residual (made once, under `once`).
struct PolicySource {
  PolicySource(SourceFile s, std::vector<TemplateLink> l) : source(std::move(s)), links(std::move(l)) {}
  SourceFile source;
  std::vector<TemplateLink> links;
  std::once_flag once;
  absl::StatusOr<PartialEvaluator> evaluator = absl::UnknownError("not made");
};

// An engine and what deciding with it needs besides.
struct EngineState {
  EngineState(Engine e, std::optional<Schema> s, Entities store, std::vector<Warning> w,
              std::shared_ptr<PolicySource> text)
      : engine(std::move(e)),
        schema(std::move(s)),
        fingerprint(schema.has_value() ? schema->Fingerprint() : std::string()),
        empty(std::move(store)),
        warnings(std::move(w)),
        policy_text(std::move(text)),
        ids(engine.policy_ids()) {
    for (size_t i = 0; i < ids.size(); ++i) index.emplace(ids[i], static_cast<uint32_t>(i));
  }

  Engine engine;
  std::optional<Schema> schema;  // a typed engine's: requests are read with it
  std::string fingerprint;       // its Fingerprint(), or empty
  Entities empty;                // entities=None: the schema's actions when typed
  std::vector<Warning> warnings;
  std::shared_ptr<PolicySource> policy_text;  // null for an engine from a bundle
  // The policy ids, and each one's index: a batch keeps its reasons as
  // indices while the GIL is released.
  std::vector<std::string> ids;
  std::unordered_map<std::string_view, uint32_t> index;
  mutable ContextPool contexts;
};

struct PyEngine {
  std::shared_ptr<const EngineState> state;
};

struct PyEntities {
  Entities entities;
  std::string fingerprint;  // of the schema it was read with, or empty
};

// A request read once, to be decided many times.
struct PyRequest {
  Request request;
  std::string fingerprint;  // of the schema it was read with, or empty
};

// Swappable engine; Charter's EngineHandle swaps an Engine, this one the
// state with its schema, under the same rule: each call decides with one
// snapshot, taken at its start.
class PyEngineHandle {
 public:
  explicit PyEngineHandle(std::shared_ptr<const EngineState> state) : state_(std::move(state)) {}
  std::shared_ptr<const EngineState> Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return state_;
  }
  void Swap(std::shared_ptr<const EngineState> state) {
    std::lock_guard<std::mutex> lock(mu_);
    state_ = std::move(state);
    ++generation_;
  }
  uint64_t generation() const {
    std::lock_guard<std::mutex> lock(mu_);
    return generation_;
  }

 private:
  mutable std::mutex mu_;  // held only to copy or replace the fields below
  std::shared_ptr<const EngineState> state_;
  uint64_t generation_ = 1;
};

std::shared_ptr<const EngineState> MakeState(Engine engine, std::optional<Schema> schema,
                                             std::vector<Warning> warnings,
                                             std::shared_ptr<PolicySource> text = nullptr) {
  Entities empty;
  if (schema.has_value()) {
    absl::StatusOr<Entities> actions = Entities::FromJson("[]", *schema, "entities.json");
    if (!actions.ok()) RaiseStatus("SchemaError", actions.status());
    empty = *std::move(actions);
  }
  return std::make_shared<const EngineState>(std::move(engine), std::move(schema), std::move(empty),
                                             std::move(warnings), std::move(text));
}

// A typed engine decides as Cedar does only for inputs read with its schema.
void CheckSchema(const EngineState& state, const std::string& fingerprint, const char* kind,
                 std::string_view what, std::string_view how) {
  if (state.fingerprint.empty() || fingerprint == state.fingerprint) return;
  Raise(kind, Cat(what, ": the engine was compiled with a schema (", state.fingerprint, "); ",
                           fingerprint.empty() ? "read them with it" : "they were read with another one",
                           " (", how, ")"));
}

const Entities& ToEntities(const EngineState& state, py::handle obj) {
  if (obj.is_none()) return state.empty;
  if (!py::isinstance<PyEntities>(obj)) ThrowTypeError("entities", "charter.Entities or None", obj);
  const PyEntities& entities = obj.cast<const PyEntities&>();
  CheckSchema(state, entities.fingerprint, "EntitiesError", "entities",
              "charter.Entities.from_json(text, schema=...)");
  return entities.entities;
}

// A request from its parts; `request` is its index in a batch, or
// Where::kAlone.
Request MakeRequest(py::handle principal, py::handle action, py::handle resource, py::handle context,
                    const Schema* schema, size_t request) {
  EntityUid p = ToUid(principal, Where(request, "principal"));
  EntityUid a = ToUid(action, Where(request, "action"));
  EntityUid r = ToUid(resource, Where(request, "resource"));
  PyObject* c = context.ptr();
  const bool empty = context.is_none() || (PyDict_Check(c) && PyDict_Size(c) == 0);
  if (empty && schema == nullptr) return Request::Create(std::move(p), std::move(a), std::move(r));
  Where where(request, "context");
  std::string json;
  std::string_view text;
  bool from_dict = false;
  if (empty) {
    text = "{}";
    from_dict = true;
  } else if (PyDict_Check(c)) {
    AppendJson(&json, context, &where);
    text = json;
    from_dict = true;
  } else if (PyUnicode_Check(c)) {
    text = Utf8(context);
  } else {
    ThrowTypeError(where.Str(), "a dict, JSON text (str) or None", context);
  }
  // The source name is needed only for a message, but Create takes it first.
  const std::string source = request == Where::kAlone ? std::string("context") : where.Str();
  absl::StatusOr<Request> made = Request::Create(std::move(p), std::move(a), std::move(r), text, schema, source);
  if (made.ok()) return *std::move(made);
  if (!from_dict) RaiseStatus("RequestError", made.status());
  // A position in JSON the caller never saw would mislead: name the context.
  std::string_view message = ToStd(made.status().message());
  std::string_view bare = WithoutPosition(message);
  Raise("RequestError", bare.size() == message.size() ? std::string(message) : Cat(source, ": ", bare));
}

Request ToPrepared(const EngineState& state, py::handle obj, size_t index) {
  const PyRequest& prepared = obj.cast<const PyRequest&>();
  if (prepared.fingerprint != state.fingerprint && !state.fingerprint.empty()) {
    CheckSchema(state, prepared.fingerprint, "RequestError", Cat("requests[", index, "]"), "engine.prepare(...)");
  }
  return prepared.request;
}

// Decides with a context from the state's pool, the GIL released.
py::object Decide(const EngineState& state, const Request& request, const Entities& entities) {
  std::unique_ptr<EvalContext> context = state.contexts.Take();
  {
    py::gil_scoped_release release;
    state.engine.Authorize(request, entities, context.get());
  }
  py::object decision = DecisionOf(*context);
  state.contexts.Give(std::move(context));
  return decision;
}

const Schema* SchemaOf(const EngineState& state) {
  return state.schema.has_value() ? &*state.schema : nullptr;
}

py::object Authorize(const EngineState& state, py::handle principal, py::handle action, py::handle resource,
                   py::handle context, py::handle entities) {
  const Entities& store = ToEntities(state, entities);
  Request request = MakeRequest(principal, action, resource, context, SchemaOf(state), Where::kAlone);
  return Decide(state, request, store);
}

py::object AuthorizeRequest(const EngineState& state, py::handle request, py::handle entities) {
  if (!py::isinstance<PyRequest>(request)) ThrowTypeError("request", "charter.Request", request);
  const Entities& store = ToEntities(state, entities);
  const PyRequest& prepared = request.cast<const PyRequest&>();
  CheckSchema(state, prepared.fingerprint, "RequestError", "request", "engine.prepare(...)");
  return Decide(state, prepared.request, store);
}

// One request of a batch: a charter.Request, a dict with "principal",
// "action", "resource" and optionally "context" (and "description", which is
// ignored, as in a requests.json file), or a tuple (principal, action,
// resource[, context]).
Request BatchItem(const EngineState& state, py::handle item, size_t index) {
  auto name = [index] { return Cat("requests[", index, "]"); };
  PyObject* o = item.ptr();
  if (PyDict_Check(o)) {
    PyObject* parts[4] = {nullptr, nullptr, nullptr, nullptr};
    static constexpr std::string_view kKeys[4] = {"principal", "action", "resource", "context"};
    Py_ssize_t pos = 0;
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    while (PyDict_Next(o, &pos, &key, &value)) {
      if (!PyUnicode_Check(key)) ThrowTypeError(Cat(name(), " (a key)"), "str", key);
      std::string_view k = Utf8(key);
      bool known = k == "description";
      for (int i = 0; i < 4; ++i) {
        if (k == kKeys[i]) {
          parts[i] = value;
          known = true;
        }
      }
      if (!known) Raise("RequestError", Cat(name(), ": unknown key \"", k, "\""));
    }
    for (int i = 0; i < 3; ++i) {
      if (parts[i] == nullptr) Raise("RequestError", Cat(name(), ": missing \"", kKeys[i], "\""));
    }
    return MakeRequest(parts[0], parts[1], parts[2], parts[3] == nullptr ? Py_None : parts[3], SchemaOf(state),
                       index);
  }
  if (PyTuple_Check(o) || PyList_Check(o)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (n != 3 && n != 4) {
      Raise("RequestError", Cat(name(), ": a request tuple is (principal, action, resource[, context]), not ",
                                n, " items"));
    }
    PyObject** parts = PySequence_Fast_ITEMS(o);
    return MakeRequest(parts[0], parts[1], parts[2], n == 4 ? parts[3] : Py_None, SchemaOf(state), index);
  }
  if (py::isinstance<PyRequest>(item)) return ToPrepared(state, item, index);
  ThrowTypeError(name(), "a charter.Request, a dict or a tuple (principal, action, resource[, context])", item);
}

// Decides a batch a chunk at a time: the chunk's requests are read (GIL
// held), decided (GIL released), and their decisions made (GIL held), so
// that a batch's memory is a chunk's, and stays in the allocator's caches.
// A chunk is large enough that releasing the GIL costs nothing next to
// deciding it.
class BatchDecider {
 public:
  static constexpr size_t kChunk = 64;

  BatchDecider(const EngineState& state, const Entities& store)
      : state_(state), store_(store), names_(state.ids.size()) {}

  void Add(Request request) {
    chunk_.push_back(std::move(request));
    if (chunk_.size() == kChunk) Flush();
  }

  py::list Finish() {
    Flush();
    return std::move(out_);
  }

 private:
  // Each decision, as indices (of policy ids) and copies (of error
  // messages) while the GIL is released.
  struct Answer {
    bool allowed;
    uint32_t reasons_end;  // into reasons_, from the previous answer's end
    uint32_t errors_end;   // into errors_
  };

  void Flush() {
    if (chunk_.empty()) return;
    answers_.clear();
    reasons_.clear();
    errors_.clear();
    std::unique_ptr<EvalContext> context = state_.contexts.Take();
    {
      py::gil_scoped_release release;
      for (const Request& request : chunk_) {
        state_.engine.Authorize(request, store_, context.get());
        for (std::string_view id : context->reasons()) reasons_.push_back(state_.index.at(id));
        for (const PolicyErrorView& e : context->errors()) {
          errors_.emplace_back(state_.index.at(e.policy_id), std::string(e.message));
        }
        answers_.push_back(Answer{context->allowed(), static_cast<uint32_t>(reasons_.size()),
                                  static_cast<uint32_t>(errors_.size())});
      }
    }
    state_.contexts.Give(std::move(context));
    chunk_.clear();
    uint32_t r = 0;
    uint32_t e = 0;
    for (const Answer& a : answers_) {
      py::object why = py::reinterpret_steal<py::object>(NewTuple(a.reasons_end - r));
      for (Py_ssize_t k = 0; r < a.reasons_end; ++r, ++k) PyTuple_SET_ITEM(why.ptr(), k, Name(reasons_[r]));
      py::object failed = py::reinterpret_steal<py::object>(NewTuple(a.errors_end - e));
      for (Py_ssize_t k = 0; e < a.errors_end; ++e, ++k) {
        PyTuple_SET_ITEM(failed.ptr(), k, NewError(state_.ids[errors_[e].first], errors_[e].second));
      }
      py::object decision = NewDecision(a.allowed, why.release().ptr(), failed.release().ptr());
      if (PyList_Append(out_.ptr(), decision.ptr()) != 0) throw py::error_already_set();
    }
  }

  // Policy `i`'s id as a new reference to a str made once a batch.
  PyObject* Name(uint32_t i) {
    if (!names_[i]) names_[i] = py::reinterpret_steal<py::object>(NewStr(state_.ids[i]));
    return names_[i].inc_ref().ptr();
  }

  const EngineState& state_;
  const Entities& store_;
  std::vector<py::object> names_;
  std::vector<Request> chunk_;
  std::vector<Answer> answers_;
  std::vector<uint32_t> reasons_;
  std::vector<std::pair<uint32_t, std::string>> errors_;
  py::list out_;
};

py::list AuthorizeBatch(const EngineState& state, py::handle requests, py::handle entities) {
  const Entities& store = ToEntities(state, entities);
  if (PyUnicode_Check(requests.ptr()) || PyDict_Check(requests.ptr()) || !py::isinstance<py::iterable>(requests)) {
    ThrowTypeError("requests", "a list of requests", requests);
  }
  BatchDecider decider(state, store);
  size_t index = 0;
  for (py::handle item : requests) decider.Add(BatchItem(state, item, index++));
  return decider.Finish();
}

PyRequest Prepare(const EngineState* state, py::handle principal, py::handle action, py::handle resource,
                  py::handle context, const std::optional<Schema>& schema) {
  const Schema* with = schema.has_value() ? &*schema : state != nullptr ? SchemaOf(*state) : nullptr;
  Request request = MakeRequest(principal, action, resource, context, with, Where::kAlone);
  return PyRequest{std::move(request), with != nullptr ? with->Fingerprint() : std::string()};
}

// --- queries ---------------------------------------------------------------

// One entity a query is allowed on (charter.Match).
struct PyMatch {
  EntityUid uid;
  std::vector<std::string> reasons;
  std::vector<std::pair<std::string, std::string>> errors;
};

PyMatch ToPyMatch(QueryMatch m) {
  PyMatch out{std::move(m.uid), std::move(m.reasons), {}};
  for (PolicyError& e : m.errors) out.errors.emplace_back(std::move(e.policy_id), std::move(e.message));
  return out;
}

// A query, read as a request is: with the engine's schema, if it has one.
// `known` is the principal (resource_unknown) or the resource.
QueryRequest MakeQuery(const EngineState& state, bool resource_unknown, py::handle known, py::handle action,
                       py::handle type, py::handle context) {
  EntityUid k = ToUid(known, Where(Where::kAlone, resource_unknown ? "principal" : "resource"));
  EntityUid a = ToUid(action, Where(Where::kAlone, "action"));
  std::string t(Str(type, resource_unknown ? "resource_type" : "principal_type"));
  PyObject* c = context.ptr();
  Where where(Where::kAlone, "context");
  std::string json;
  std::string_view text;
  bool from_dict = false;
  if (context.is_none()) {
    from_dict = true;
  } else if (PyDict_Check(c)) {
    AppendJson(&json, context, &where);
    text = json;
    from_dict = true;
  } else if (PyUnicode_Check(c)) {
    text = Utf8(context);
  } else {
    ThrowTypeError("context", "a dict, JSON text (str) or None", context);
  }
  const Schema* schema = SchemaOf(state);
  absl::StatusOr<QueryRequest> query =
      resource_unknown ? QueryRequest::ForResources(std::move(k), std::move(a), std::move(t), text, schema, "context")
                       : QueryRequest::ForPrincipals(std::move(t), std::move(a), std::move(k), text, schema, "context");
  if (query.ok()) return *std::move(query);
  if (!from_dict) RaiseStatus("RequestError", query.status());
  // A position in JSON the caller never saw would mislead: name the context.
  std::string_view message = ToStd(query.status().message());
  std::string_view bare = WithoutPosition(message);
  Raise("RequestError", bare.size() == message.size() ? std::string(message) : Cat("context: ", bare));
}

// A page of the listing, decided with the GIL released; a query the store
// refuses (its known side missing, a misspelt type) raises RequestError.
ListPage Page(const EngineState& state, const QueryRequest& query, const Entities& store, size_t start,
              size_t limit) {
  ListOptions options;
  options.start = start;
  options.limit = limit;
  absl::StatusOr<ListPage> page = [&] {
    py::gil_scoped_release release;
    return ListAllowed(state.engine, query, store, options);
  }();
  if (!page.ok()) RaiseStatus("RequestError", page.status());
  return *std::move(page);
}

py::list ListAll(const EngineState& state, const QueryRequest& query, py::handle entities) {
  const Entities& store = ToEntities(state, entities);
  ListPage page = Page(state, query, store, 0, std::numeric_limits<size_t>::max());
  py::list out;
  for (QueryMatch& m : page.matches) out.append(py::cast(ToPyMatch(std::move(m))));
  return out;
}

// engine.iter_allowed(...): the listing a page at a time. It keeps the
// engine state and the store it started with, and decides the next page
// (with the GIL released) when the last is used up.
class MatchIterator {
 public:
  MatchIterator(std::shared_ptr<const EngineState> state, QueryRequest query, Entities store, size_t page_size)
      : state_(std::move(state)), query_(std::move(query)), store_(std::move(store)), page_size_(page_size) {}

  // Decides pages until one has a match or none is left.
  void Fill() {
    while (pos_ == buffer_.size() && !done_) {
      ListPage page = Page(*state_, query_, store_, next_, page_size_);
      buffer_ = std::move(page.matches);
      pos_ = 0;
      next_ = page.next;
      done_ = page.next == 0;
    }
  }

  PyMatch Next() {
    Fill();
    if (pos_ == buffer_.size()) throw py::stop_iteration();
    return ToPyMatch(std::move(buffer_[pos_++]));
  }

 private:
  std::shared_ptr<const EngineState> state_;
  QueryRequest query_;
  Entities store_;
  size_t page_size_;
  std::vector<QueryMatch> buffer_;
  size_t pos_ = 0;
  size_t next_ = 0;
  bool done_ = false;
};

MatchIterator IterAllowed(const std::shared_ptr<const EngineState>& state, bool resource_unknown, py::handle known,
                          py::handle action, py::handle type, py::handle context, py::handle entities,
                          py::handle page_size) {
  if (!PyLong_Check(page_size.ptr()) || PyBool_Check(page_size.ptr())) ThrowTypeError("page_size", "int", page_size);
  const long long size = PyLong_AsLongLong(page_size.ptr());
  if (size <= 0) {
    if (PyErr_Occurred()) PyErr_Clear();
    throw py::value_error(Cat("page_size: expected a positive int, got ", std::string(py::str(page_size))));
  }
  QueryRequest query = MakeQuery(*state, resource_unknown, known, action, type, context);
  const Entities& store = ToEntities(*state, entities);
  // The query's faults are raised here, not at the first next().
  MatchIterator it(state, std::move(query), store, static_cast<size_t>(size));
  it.Fill();
  return it;
}

// charter.Residual: a Residual with its renderings, made once.
struct PyResidual {
  Residual residual;
  std::string text;
  std::string json;
};

PyResidual MakeResidual(const EngineState& state, bool resource_unknown, py::handle known, py::handle action,
                        py::handle type, py::handle context, py::handle entities) {
  PolicySource* text = state.policy_text.get();
  if (text == nullptr) {
    Raise("BundleError",
          "a residual needs the policy text: this engine was loaded from a bundle, which holds compiled code only "
          "(compile the text with charter.compile)");
  }
  QueryRequest query = MakeQuery(state, resource_unknown, known, action, type, context);
  const Entities& store = ToEntities(state, entities);
  absl::StatusOr<Residual> residual = absl::UnknownError("");
  {
    py::gil_scoped_release release;
    std::call_once(text->once, [text] { text->evaluator = PartialEvaluator::Create(text->source, text->links); });
    if (text->evaluator.ok()) residual = text->evaluator->Evaluate(query, store);
  }
  if (!text->evaluator.ok()) RaiseStatus("PolicyError", text->evaluator.status());
  if (!residual.ok()) RaiseStatus("RequestError", residual.status());
  PyResidual out{*std::move(residual), {}, {}};
  out.text = out.residual.ToText();
  out.json = out.residual.ToJson();
  return out;
}

// --- module functions ----------------------------------------------------

// Compiles policy text; `typed` gets the schema, `warnings` the compiler's
// warnings.
Bundle CompileBundle(py::handle policies, py::handle schema, py::handle links, std::string_view source_name,
                     std::optional<Schema>* typed, std::vector<Warning>* warnings,
                     std::shared_ptr<PolicySource>* kept = nullptr) {
  std::string_view text = Str(policies, "policies");
  if (!schema.is_none()) *typed = ToSchema(schema, "schema");
  std::vector<TemplateLink> template_links;
  if (!links.is_none()) {
    absl::StatusOr<std::vector<TemplateLink>> parsed = ParseTemplateLinks(Str(links, "links"), "links.json");
    if (!parsed.ok()) RaiseStatus("PolicyError", parsed.status());
    template_links = *std::move(parsed);
  }
  SourceFile source{std::string(source_name), std::string(text)};
  CompileOptions options;
  options.schema = typed->has_value() ? &**typed : nullptr;
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = [&] {
    py::gil_scoped_release release;
    return Compile(source, template_links, options, &diagnostics);
  }();
  if (!bundle.ok()) {
    Raise("PolicyError", ToStd(bundle.status().message()), FirstErrorCode(diagnostics),
          DiagnosticTuple(diagnostics, source));
  }
  for (const Diagnostic& d : diagnostics.items()) {
    if (d.severity != Severity::kWarning) continue;
    SourceFile::Position p = source.PositionOf(d.span.begin);
    warnings->push_back(Warning{d.code, d.message, source.name(), d.help, p.line, p.column});
  }
  if (kept != nullptr) {
    *kept = std::make_shared<PolicySource>(std::move(source), std::move(template_links));
  }
  return *std::move(bundle);
}

PyEngine CompilePolicies(py::handle policies, py::handle schema, py::handle links, std::string_view source_name) {
  std::optional<Schema> typed;
  std::vector<Warning> warnings;
  std::shared_ptr<PolicySource> text;
  Bundle bundle = CompileBundle(policies, schema, links, source_name, &typed, &warnings, &text);
  absl::StatusOr<Engine> engine = Engine::Create(std::move(bundle));
  if (!engine.ok()) RaiseStatus("BundleError", engine.status());  // the compiler's bundle: a bug
  return PyEngine{MakeState(*std::move(engine), std::move(typed), std::move(warnings), std::move(text))};
}

py::bytes BuildBundle(py::handle policies, py::handle schema, py::handle links, std::string_view source_name) {
  std::optional<Schema> typed;
  std::vector<Warning> warnings;
  Bundle bundle = CompileBundle(policies, schema, links, source_name, &typed, &warnings);
  std::string_view bytes = bundle.bytes();
  return py::bytes(bytes.data(), bytes.size());
}

PyEngine LoadBundle(py::handle bundle_or_path, py::handle schema) {
  std::optional<Schema> typed;
  if (!schema.is_none()) typed = ToSchema(schema, "schema");
  std::string name = "bundle";
  std::optional<Bundle> bundle;
  if (PyBytes_Check(bundle_or_path.ptr()) || PyByteArray_Check(bundle_or_path.ptr()) ||
      PyMemoryView_Check(bundle_or_path.ptr())) {
    py::object bytes = py::reinterpret_steal<py::object>(PyBytes_FromObject(bundle_or_path.ptr()));
    if (!bytes) throw py::error_already_set();
    bundle = Bundle::FromBytes(std::string(PyBytes_AS_STRING(bytes.ptr()), PyBytes_GET_SIZE(bytes.ptr())));
  } else {
    name = Path(bundle_or_path, "path");
    absl::StatusOr<Bundle> read = Bundle::FromFile(name);
    if (!read.ok()) {
      std::string_view message = ToStd(read.status().message());
      Raise("BundleError", message.find(name) == std::string_view::npos ? Cat(name, ": ", message)
                                                                        : std::string(message));
    }
    bundle = *std::move(read);
  }
  absl::StatusOr<Engine> engine = [&] {
    py::gil_scoped_release release;
    return Engine::Create(*std::move(bundle));
  }();
  if (!engine.ok()) Raise("BundleError", Cat(name, ": ", engine.status().message()));
  const std::string_view fingerprint = engine->schema_fingerprint();
  switch (engine->FitSchema(typed.has_value() ? &*typed : nullptr)) {
    case Engine::SchemaFit::kUntyped:
      if (typed.has_value()) {
        Raise("BundleError",
              Cat(name, ": the bundle was compiled without a schema; compile it with one to use schema="));
      }
      break;
    case Engine::SchemaFit::kSame: break;
    case Engine::SchemaFit::kMissing:
      Raise("BundleError", Cat(name, ": the bundle was compiled with a schema (", fingerprint,
                                        "): pass it as schema=, so that requests and entities are read with it"));
      break;
    case Engine::SchemaFit::kOther:
      Raise("BundleError", Cat(name, ": the bundle was compiled with another schema (", fingerprint,
                                        "); the schema given is ", typed->Fingerprint()));
      break;
  }
  return PyEngine{MakeState(*std::move(engine), std::move(typed), {})};
}

PyEntities EntitiesFromJson(py::handle text, py::handle schema, std::string_view source_name) {
  std::string_view json = Str(text, "text");
  std::optional<Schema> typed;
  if (!schema.is_none()) typed = ToSchema(schema, "schema");
  absl::StatusOr<Entities> entities = [&] {
    // `json` points into the str, which the caller holds and nobody can change.
    py::gil_scoped_release release;
    return typed.has_value() ? Entities::FromJson(json, *typed, source_name) : Entities::FromJson(json, source_name);
  }();
  if (!entities.ok()) RaiseStatus("EntitiesError", entities.status());
  return PyEntities{*std::move(entities), typed.has_value() ? typed->Fingerprint() : std::string()};
}

py::object Schedule(py::handle state, bool hyperpod, py::handle scenario) {
  py::object json_module = py::module_::import("json");
  std::string text;
  if (PyUnicode_Check(state.ptr())) {
    text = std::string(Utf8(state));
  } else if (PyDict_Check(state.ptr())) {
    text = std::string(py::str(json_module.attr("dumps")(state)));
  } else {
    ThrowTypeError("state", "a dict or JSON text (str)", state);
  }
  schedule::LoadOptions options;
  if (!scenario.is_none()) options.scenario = std::string(Str(scenario, "scenario"));
  absl::StatusOr<schedule::State> loaded =
      hyperpod ? schedule::LoadHyperPodState(text, options) : schedule::LoadState(text, options);
  if (!loaded.ok()) RaiseStatus("ScheduleError", loaded.status());
  std::string result;
  absl::Status status;
  {
    py::gil_scoped_release release;
    absl::StatusOr<schedule::CycleResult> cycle = schedule::RunCycle(*loaded);
    if (cycle.ok()) {
      result = cycle->ToJson();
    } else {
      status = cycle.status();
    }
  }
  if (!status.ok()) RaiseStatus("ScheduleError", status);
  return json_module.attr("loads")(py::str(result));
}

py::list StringList(const std::vector<std::string>& items) {
  py::list out(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), py::str(items[i]).release().ptr());
  }
  return out;
}

// The methods an Engine and an EngineHandle share, each over `State(self)`.
template <typename T, typename StateOf>
void DefineDeciding(py::class_<T>& cls, StateOf state_of) {
  cls.def(
         "authorize",
         [state_of](const T& self, py::handle principal, py::handle action, py::handle resource,
                    py::handle context, py::handle entities) {
           return Authorize(*state_of(self), principal, action, resource, context, entities);
         },
         py::arg("principal"), py::arg("action"), py::arg("resource"), py::arg("context") = py::none(),
         py::arg("entities") = py::none(),
         "authorize(principal, action, resource, context=None, entities=None) -> Decision\n\n"
         "Decides one request.\n\n"
         "principal, action and resource are entity references: 'Type::\"id\"', {'type': ..., 'id': ...}\n"
         "or a charter.EntityUid. context is a dict of Cedar values (bool, int, str, list or set, dict,\n"
         "{'__entity': ...}, {'__extn': ...}) or its JSON text; entities a charter.Entities (None: none).\n"
         "The GIL is released while the engine decides.")
      .def(
          "authorize_request",
          [state_of](const T& self, py::handle request, py::handle entities) {
            return AuthorizeRequest(*state_of(self), request, entities);
          },
          py::arg("request"), py::arg("entities") = py::none(),
          "authorize_request(request, entities=None) -> Decision\n\n"
          "Decides a request prepared with prepare(): the fastest call for a request decided often.")
      .def(
          "authorize_batch",
          [state_of](const T& self, py::handle requests, py::handle entities) {
            return AuthorizeBatch(*state_of(self), requests, entities);
          },
          py::arg("requests"), py::arg("entities") = py::none(),
          "authorize_batch(requests, entities=None) -> list[Decision]\n\n"
          "Decides many requests at once, releasing the GIL once for each 64; returns a list of\n"
          "Decision in their order. Each request is a charter.Request, a dict with 'principal',\n"
          "'action', 'resource' and optionally 'context' (an object of a requests.json file), or a\n"
          "tuple (principal, action, resource[, context]).")
      .def(
          "prepare",
          [state_of](const T& self, py::handle principal, py::handle action, py::handle resource,
                     py::handle context) {
            return Prepare(state_of(self).get(), principal, action, resource, context, std::nullopt);
          },
          py::arg("principal"), py::arg("action"), py::arg("resource"), py::arg("context") = py::none(),
          "prepare(principal, action, resource, context=None) -> Request\n\n"
          "Reads a request once (with the engine's schema, if it has one) for authorize_request().")
      .def(
          "list_allowed",
          [state_of](const T& self, py::handle principal, py::handle action, py::handle resource_type,
                     py::handle context, py::handle entities) {
            const auto& state = state_of(self);
            return ListAll(*state, MakeQuery(*state, true, principal, action, resource_type, context), entities);
          },
          py::arg("principal"), py::arg("action"), py::arg("resource_type"), py::arg("context") = py::none(),
          py::arg("entities") = py::none(),
          "list_allowed(principal, action, resource_type, context=None, entities=None) -> list[Match]\n\n"
          "The entities of type resource_type in `entities` that principal is allowed action on, in the\n"
          "store's order, each a charter.Match with uid, reasons and errors: what authorize() answers for\n"
          "each one (`charter query --principal P --resource-type T`). A query the schema or the store\n"
          "refuses (an unknown type, a principal not in the store) raises RequestError. The GIL is\n"
          "released while the engine decides.")
      .def(
          "list_allowed_principals",
          [state_of](const T& self, py::handle principal_type, py::handle action, py::handle resource,
                     py::handle context, py::handle entities) {
            const auto& state = state_of(self);
            return ListAll(*state, MakeQuery(*state, false, resource, action, principal_type, context), entities);
          },
          py::arg("principal_type"), py::arg("action"), py::arg("resource"), py::arg("context") = py::none(),
          py::arg("entities") = py::none(),
          "list_allowed_principals(principal_type, action, resource, context=None, entities=None) -> list[Match]\n\n"
          "The reverse of list_allowed: the entities of type principal_type allowed action on resource.")
      .def(
          "iter_allowed",
          [state_of](const T& self, py::handle principal, py::handle action, py::handle resource_type,
                     py::handle context, py::handle entities, py::handle page_size) {
            return IterAllowed(state_of(self), true, principal, action, resource_type, context, entities, page_size);
          },
          py::arg("principal"), py::arg("action"), py::arg("resource_type"), py::arg("context") = py::none(),
          py::arg("entities") = py::none(), py::kw_only(), py::arg("page_size") = 256,
          "iter_allowed(principal, action, resource_type, context=None, entities=None, *, page_size=256)\n"
          "    -> Iterator[Match]\n\n"
          "list_allowed a page at a time, for large stores: each page of page_size matches is decided\n"
          "when the previous one is used up, with the GIL released. Stop iterating to stop deciding.")
      .def(
          "iter_allowed_principals",
          [state_of](const T& self, py::handle principal_type, py::handle action, py::handle resource,
                     py::handle context, py::handle entities, py::handle page_size) {
            return IterAllowed(state_of(self), false, resource, action, principal_type, context, entities,
                               page_size);
          },
          py::arg("principal_type"), py::arg("action"), py::arg("resource"), py::arg("context") = py::none(),
          py::arg("entities") = py::none(), py::kw_only(), py::arg("page_size") = 256,
          "iter_allowed_principals(principal_type, action, resource, context=None, entities=None, *,\n"
          "                        page_size=256) -> Iterator[Match]\n\n"
          "list_allowed_principals a page at a time.")
      .def(
          "residual",
          [state_of](const T& self, py::handle principal, py::handle action, py::handle resource_type,
                     py::handle context, py::handle entities) {
            return MakeResidual(*state_of(self), true, principal, action, resource_type, context, entities);
          },
          py::arg("principal"), py::arg("action"), py::arg("resource_type"), py::arg("context") = py::none(),
          py::arg("entities") = py::none(),
          "residual(principal, action, resource_type, context=None, entities=None) -> Residual\n\n"
          "The condition on an unknown resource of type resource_type under which principal is allowed\n"
          "action, from partial evaluation of the policy text (`charter query --residual`). Needs an\n"
          "engine compiled from text: one from a bundle raises BundleError.")
      .def(
          "residual_principals",
          [state_of](const T& self, py::handle principal_type, py::handle action, py::handle resource,
                     py::handle context, py::handle entities) {
            return MakeResidual(*state_of(self), false, resource, action, principal_type, context, entities);
          },
          py::arg("principal_type"), py::arg("action"), py::arg("resource"), py::arg("context") = py::none(),
          py::arg("entities") = py::none(),
          "residual_principals(principal_type, action, resource, context=None, entities=None) -> Residual\n\n"
          "The condition on an unknown principal of type principal_type allowed action on resource.");
}

}  // namespace
}  // namespace charter::python

PYBIND11_MODULE(_charter, m) {
  using namespace charter;
  using namespace charter::python;
  m.doc() = "Charter's C++ API for Python. Import the package `charter`, which re-exports it.";
  // Each docstring starts with the signature in the stubs' terms
  // (charter/__init__.pyi), not pybind11's (`handle`, `object`).
  py::options options;
  options.disable_function_signatures();

  py::class_<EntityUid>(m, "EntityUid",
                          "EntityUid(type: str, id: str)\n\nA reference to an entity: its type (with namespaces) and id. A type that "
                          "is not a name as EntityUid.parse reads one (a reserved word such as 'if') raises "
                          "RequestError.")
      .def(py::init([](py::handle type, py::handle id) {
             std::string t(Str(type, "type"));
             return CheckedUid(std::move(t), std::string(Str(id, "id")), "");
           }),
           py::arg("type"), py::arg("id"))
      .def_static(
          "parse",
          [](py::handle text) {
            absl::StatusOr<EntityUid> uid = EntityUid::Parse(Str(text, "text"));
            if (!uid.ok()) Raise("RequestError", ToStd(uid.status().message()));
            return *std::move(uid);
          },
          py::arg("text"), "parse(text: str) -> EntityUid\n\nReads Cedar's text form, 'Type::\"id\"' (with namespaces and escapes).")
      .def_readonly("type", &EntityUid::type)
      .def_readonly("id", &EntityUid::id)
      .def("__str__", &EntityUid::ToString)
      .def("__repr__",
           [](const EntityUid& u) {
             return Cat("EntityUid(", std::string(py::repr(py::str(u.type))), ", ",
                                 std::string(py::repr(py::str(u.id))), ")");
           })
      .def("__eq__",
           [](const EntityUid& a, py::handle b) {
             return py::isinstance<EntityUid>(b) && a == b.cast<const EntityUid&>();
           })
      .def("__hash__", [](const EntityUid& u) { return py::hash(py::make_tuple(u.type, u.id)); });

  AddDecisionType(m);

  py::class_<Schema>(m, "Schema", "A schema, in Cedar's schema text or JSON schema format.")
      .def(py::init([](py::handle text) { return ToSchema(text, "text"); }), py::arg("text"),
           "Schema(text: str)\n\nReads a schema; a fault raises SchemaError.")
      .def("to_json", &Schema::ToJson, "to_json() -> str\n\nThe schema in Cedar's JSON schema format.")
      .def("to_cedar", &Schema::ToCedar, "to_cedar() -> str\n\nThe schema in Cedar's schema text.")
      .def_property_readonly("fingerprint", &Schema::Fingerprint,
                             "'sha256:' and the SHA-256 of to_json(): the same for the same schema.")
      .def("entity_types", [](const Schema& s) { return StringList(s.EntityTypes()); },
           "entity_types() -> list[str]\n\nEvery entity type, sorted.")
      .def(
          "actions",
          [](const Schema& s) {
            std::vector<std::string> out;
            for (const EntityUid& a : s.Actions()) out.push_back(a.ToString());
            return StringList(out);
          },
          "actions() -> list[str]\n\nEvery action, as 'Action::\"name\"' strings, sorted.");

  py::class_<PyEntities>(m, "Entities", "An immutable entity store, shared by any number of calls.")
      .def(py::init([] { return PyEntities{Entities(), std::string()}; }), "An empty store.")
      .def_static(
          "from_json",
          [](py::handle text, py::handle schema, std::string_view source_name) {
            return EntitiesFromJson(text, schema, source_name);
          },
          py::arg("text"), py::arg("schema") = py::none(), py::arg("source_name") = "entities.json",
          "from_json(text, schema=None, source_name='entities.json') -> Entities\n\n"
          "Reads Cedar's JSON entity format; with a schema (a charter.Schema or its text), as Cedar\n"
          "reads entities with one (docs/entities.md). A fault raises EntitiesError.")
      .def("__len__", [](const PyEntities& e) { return e.entities.size(); })
      .def(
          "uids",
          [](const PyEntities& e) {
            py::list out;
            for (const EntityUid& u : e.entities.Uids()) out.append(py::cast(u));
            return out;
          },
          "uids() -> list[EntityUid]\n\nThe entities with data, in the store's order.")
      .def("__contains__",
           [](const PyEntities& e, py::handle uid) {
             return e.entities.Find(ToUid(uid, Where(Where::kAlone, "uid"))).has_value();
           });

  py::class_<PyRequest>(m, "Request",
                          "Request(principal, action, resource, context=None, schema=None)\n\n"
                          "A request read once, for Engine.authorize_request().")
      .def(py::init([](py::handle principal, py::handle action, py::handle resource, py::handle context,
                       py::handle schema) {
             std::optional<Schema> with;
             if (!schema.is_none()) with = ToSchema(schema, "schema");
             return Prepare(nullptr, principal, action, resource, context, with);
           }),
           py::arg("principal"), py::arg("action"), py::arg("resource"), py::arg("context") = py::none(),
           py::arg("schema") = py::none())
      .def_property_readonly("principal", [](const PyRequest& r) { return r.request.principal(); })
      .def_property_readonly("action", [](const PyRequest& r) { return r.request.action(); })
      .def_property_readonly("resource", [](const PyRequest& r) { return r.request.resource(); })
      .def_property_readonly(
          "context", [](const PyRequest& r) { return r.request.ContextToCedar(); },
          "The context as a Cedar record literal.")
      .def("__repr__", [](const PyRequest& r) {
        return Cat("Request(", r.request.principal().ToString(), ", ", r.request.action().ToString(), ", ",
                            r.request.resource().ToString(), ", ", r.request.ContextToCedar(), ")");
      });

  py::class_<PyMatch>(m, "Match", "One entity a query is allowed on: uid, reasons and errors.")
      .def_property_readonly("uid", [](const PyMatch& x) { return x.uid; }, "The entity, a charter.EntityUid.")
      .def_property_readonly(
          "reasons", [](const PyMatch& x) { return StringList(x.reasons); },
          "The determining policies' ids, as in Decision.reasons.")
      .def_property_readonly(
          "errors",
          [](const PyMatch& x) {
            py::list out;
            for (const auto& [policy, message] : x.errors) out.append(py::make_tuple(policy, message));
            return out;
          },
          "(policy_id, message) pairs: the policies skipped on it with an error.")
      .def("__repr__", [](const PyMatch& x) {
        return std::string(py::str("Match(uid={!r}, reasons={!r})").format(py::cast(x.uid), StringList(x.reasons)));
      });

  py::class_<MatchIterator>(m, "MatchIterator", "The matches of iter_allowed(), a page at a time.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &MatchIterator::Next);

  py::class_<PyResidual>(m, "Residual",
                         "The condition on an unknown entity under which a query is allowed (engine.residual()).")
      .def_property_readonly(
          "outcome",
          [](const PyResidual& r) {
            switch (r.residual.outcome()) {
              case Residual::Outcome::kAllow: return "allow";
              case Residual::Outcome::kDeny: return "deny";
              case Residual::Outcome::kDepends: break;
            }
            return "depends";
          },
          "'allow' (for every entity of the type), 'deny' (for none) or 'depends' (where condition holds).")
      .def_property_readonly(
          "condition", [](const PyResidual& r) { return r.residual.condition(); },
          "The condition as Cedar text over `resource` (or `principal`); 'true' or 'false' when it does\n"
          "not depend on the unknown.")
      .def_property_readonly(
          "condition_json",
          [](const PyResidual& r) { return py::module_::import("json").attr("loads")(r.residual.condition_json()); },
          "The condition as Cedar's JSON expression (a dict).")
      .def_property_readonly("exact", [](const PyResidual& r) { return r.residual.exact(); },
                             "True when the condition can never fail to evaluate.")
      .def_property_readonly(
          "label_selector",
          [](const PyResidual& r) -> py::object {
            const std::optional<std::string>& s = r.residual.label_selector();
            if (!s.has_value()) return py::none();
            return py::str(*s);
          },
          "The condition as a Kubernetes label selector, or None when there is none.")
      .def("to_json", [](const PyResidual& r) { return r.json; },
           "to_json() -> str\\n\\nThe residual as `charter query --residual --format json` prints it.")
      .def("__str__", [](const PyResidual& r) { return r.text; })
      .def("__repr__", [](const PyResidual& r) {
        return std::string(py::str("Residual(outcome={!r}, condition={!r})")
                               .format(py::str(r.residual.outcome() == Residual::Outcome::kAllow   ? "allow"
                                               : r.residual.outcome() == Residual::Outcome::kDeny ? "deny"
                                                                                                  : "depends"),
                                       r.residual.condition()));
      });

  py::class_<PyEngine> engine(m, "Engine", "A verified policy set; immutable, safe to share across threads.");
  DefineDeciding(engine, [](const PyEngine& e) -> const std::shared_ptr<const EngineState>& { return e.state; });
  engine
      .def_property_readonly(
          "policy_ids", [](const PyEngine& e) { return StringList(e.state->engine.policy_ids()); },
          "The policies' ids in policy-set order.")
      .def("__len__", [](const PyEngine& e) { return e.state->engine.policy_count(); })
      .def_property_readonly(
          "schema", [](const PyEngine& e) { return e.state->schema.has_value() ? py::cast(*e.state->schema) : py::none(); },
          "The schema a typed engine was compiled with, or None.")
      .def_property_readonly(
          "warnings",
          [](const PyEngine& e) {
            py::object make = py::module_::import("charter._errors").attr("Diagnostic");
            py::list out;
            for (const Warning& w : e.state->warnings) {
              out.append(make("warning", w.code, w.message, w.source, w.line, w.column, w.help));
            }
            return out;
          },
          "The compiler's warnings, as charter.Diagnostic values (a policy that can never apply, ...).");

  py::class_<PyEngineHandle> handle(m, "EngineHandle",
                                    "EngineHandle(engine: Engine)\n\n"
                                    "The engine a service decides with now, replaceable while calls are in "
                                    "flight: each call decides with the engine current when it started.");
  handle.def(py::init([](py::handle e) {
               if (!py::isinstance<PyEngine>(e)) ThrowTypeError("engine", "charter.Engine", e);
               return new PyEngineHandle(e.cast<const PyEngine&>().state);
             }),
             py::arg("engine"));
  DefineDeciding(handle, [](const PyEngineHandle& h) { return h.Get(); });
  handle
      .def(
          "swap",
          [](PyEngineHandle& h, py::handle e) {
            if (!py::isinstance<PyEngine>(e)) ThrowTypeError("engine", "charter.Engine", e);
            h.Swap(e.cast<const PyEngine&>().state);
          },
          py::arg("engine"), "swap(engine: Engine) -> None\n\nInstalls `engine` for every call that starts from now on.")
      .def_property_readonly(
          "engine", [](const PyEngineHandle& h) { return PyEngine{h.Get()}; }, "The current engine.")
      .def_property_readonly("generation", &PyEngineHandle::generation,
                             "How many times an engine was installed (1 after construction).");

  m.def(
      "compile",
      [](py::handle policies, py::handle schema, py::handle links, std::string_view source_name) {
        return CompilePolicies(policies, schema, links, source_name);
      },
      py::arg("policies"), py::arg("schema") = py::none(), py::kw_only(), py::arg("links") = py::none(),
      py::arg("source_name") = "policies.cedar",
      "compile(policies, schema=None, *, links=None, source_name='policies.cedar') -> Engine\n\n"
      "Compiles policy text (Cedar's text or JSON policy format) into an Engine.\n\n"
      "With a schema (a charter.Schema or its text), the policies are validated against it and compiled\n"
      "typed; the engine then reads requests with the schema, and takes only entities read with it.\n"
      "links: template links as JSON text, in the Cedar CLI's --template-linked form.\n"
      "A fault raises PolicyError (SchemaError for the schema).");
  m.def(
      "build",
      [](py::handle policies, py::handle schema, py::handle links, std::string_view source_name) {
        return BuildBundle(policies, schema, links, source_name);
      },
      py::arg("policies"), py::arg("schema") = py::none(), py::kw_only(), py::arg("links") = py::none(),
      py::arg("source_name") = "policies.cedar",
      "build(policies, schema=None, *, links=None, source_name='policies.cedar') -> bytes\n\n"
      "Compiles policy text as compile() does and returns the bundle's bytes (what `charter build`\n"
      "writes), for load_bundle() here or elsewhere.");
  m.def(
      "load_bundle",
      [](py::handle bundle, py::handle schema) { return LoadBundle(bundle, schema); }, py::arg("bundle"),
      py::arg("schema") = py::none(),
      "load_bundle(bundle, schema=None) -> Engine\n\n"
      "Loads a bundle built by `charter build`, from a path or from bytes, and verifies it.\n\n"
      "A bundle compiled with a schema needs that schema. A fault raises BundleError.");
  m.def(
      "schedule",
      [](py::handle state, bool hyperpod, py::handle scenario) { return Schedule(state, hyperpod, scenario); },
      py::arg("state"), py::arg("hyperpod") = false, py::arg("scenario") = py::none(),
      "schedule(state, hyperpod=False, scenario=None) -> dict\n\n"
      "Runs one Kueue scheduling cycle over a state (docs/scheduling.md), a dict or its JSON text, and\n"
      "returns the cycle's result as a dict (`charter schedule --format json`). hyperpod=True reads\n"
      "HyperPod task governance objects instead. A fault raises ScheduleError.");
  m.def(
      "version", [] { return std::string(Version()); }, "version() -> str\n\nThe library's version, 'MAJOR.MINOR.PATCH'.");
}
