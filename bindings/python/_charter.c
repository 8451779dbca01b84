/* charter._charter: the Python binding's extension, in C, over Charter's C
 * API alone (bindings/c/include/charter.h). It holds what runs on every
 * decision (reading a request's Python values, deciding with the GIL
 * released, making a Decision) and thin calls for the rest; the package
 * `charter` (the files of charter/) builds the Pythonic API over it: its classes
 * subclass the types here, and it holds the exceptions, the docstrings and
 * the keyword arguments of everything that is not per decision.
 *
 * Why the per-decision calls are here and not in Python: a Python method
 * around a C call costs about as much as a tenth of a decision, more than
 * docs/performance.md allows the binding.
 *
 * Every C API handle is owned by exactly one Python object, whose dealloc
 * frees it; the GIL guards the pool of evaluation contexts of an engine.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "charter.h"

/* Context values nest at most this deep (Charter's entity reader allows 64). */
#define MAX_NESTING 64
/* Evaluation contexts an engine keeps for reuse: about the threads that
 * decide at once. */
#define POOL_SIZE 16
/* A batch is decided this many requests at a time, the GIL released once. */
#define CHUNK 64

/* ---- module state (set once, at import and by _register) ---------------------- */

static PyObject* errors_module = NULL;  /* charter._errors */
static PyObject* entity_uid_type = NULL; /* charter.EntityUid, registered by the package */
static PyObject* str_type = NULL;        /* interned "type" */
static PyObject* str_id = NULL;          /* interned "id" */
/* Interned keys of Cedar's escapes, looked up in every context dict:
 * "__extn", "__entity", "__expr", "fn", "arg", "args". */
enum { KEY_EXTN, KEY_ENTITY, KEY_EXPR, KEY_FN, KEY_ARG, KEY_ARGS, KEY_COUNT };
static PyObject* escape_keys[KEY_COUNT];
static PyObject* str_allow = NULL;
static PyObject* str_deny = NULL;
/* Interned "principal", "action", "resource", "context", "description". */
static PyObject* request_keys[5] = {NULL, NULL, NULL, NULL, NULL};

/* ---- errors ------------------------------------------------------------------------ */

static PyObject* error_class(const char* kind) {
  if (errors_module == NULL) {
    errors_module = PyImport_ImportModule("charter._errors");
    if (errors_module == NULL) return NULL;
  }
  return PyObject_GetAttrString(errors_module, kind);
}

static PyObject* request_class = NULL;   /* charter.Request, for prepare() */

/* Raises charter.<kind>(text, code=code, diagnostics=diagnostics); steals
 * text, code and diagnostics (any may be NULL: "", None, ()). Returns NULL. */
static PyObject* raise_extra(const char* kind, PyObject* text, PyObject* code, PyObject* diagnostics,
                             PyObject* extra) {
  PyObject* cls = NULL;
  PyObject* args = NULL;
  PyObject* kwargs = extra;
  PyObject* exc = NULL;
  if (text == NULL) goto done;
  cls = error_class(kind);
  if (cls == NULL) goto done;
  args = PyTuple_Pack(1, text);
  if (kwargs == NULL) kwargs = PyDict_New();
  if (args == NULL || kwargs == NULL) goto done;
  if (code != NULL && PyDict_SetItemString(kwargs, "code", code) != 0) goto done;
  if (diagnostics != NULL && PyDict_SetItemString(kwargs, "diagnostics", diagnostics) != 0) goto done;
  exc = PyObject_Call(cls, args, kwargs);
  if (exc != NULL) PyErr_SetObject(cls, exc);
done:
  Py_XDECREF(text);
  Py_XDECREF(code);
  Py_XDECREF(diagnostics);
  Py_XDECREF(cls);
  Py_XDECREF(args);
  Py_XDECREF(kwargs);
  Py_XDECREF(exc);
  return NULL;
}

static PyObject* raise_steal(const char* kind, PyObject* text, PyObject* code, PyObject* diagnostics) {
  return raise_extra(kind, text, code, diagnostics, NULL);
}

static PyObject* raise_fmt(const char* kind, const char* format, ...) {
  va_list va;
  va_start(va, format);
  PyObject* text = PyUnicode_FromFormatV(format, va);
  va_end(va);
  return raise_steal(kind, text, NULL, NULL);
}

static PyObject* str_n(const char* s, size_t n) {
  return PyUnicode_DecodeUTF8(s == NULL ? "" : s, (Py_ssize_t)n, "replace");
}

static PyObject* diagnostic_tuple(const charter_diagnostic* d) {
  return Py_BuildValue("(sNNNIIN)", d->severity == CHARTER_SEVERITY_ERROR ? "error" : "warning",
                       str_n(d->code, d->code_length), str_n(d->message, d->message_length),
                       str_n(d->source, d->source_length), d->line, d->column, str_n(d->help, d->help_length));
}

/* Raises charter.<kind> from a C API error (freed), with its code and every
 * diagnostic (as charter.Diagnostic). `prefix` (may be NULL) goes before the
 * message, as "PREFIX: message". */
static PyObject* raise_error(const char* kind, charter_error* error, PyObject* prefix) {
  size_t n = 0;
  if (charter_error_status(error) == CHARTER_ERROR_OUT_OF_MEMORY) {
    charter_error_free(error);
    return PyErr_NoMemory();
  }
  const char* message = charter_error_message(error, &n);
  PyObject* text = str_n(message, n);
  if (text != NULL && prefix != NULL) {
    PyObject* joined = PyUnicode_FromFormat("%U: %U", prefix, text);
    Py_DECREF(text);
    text = joined;
  }
  const char* code = charter_error_code(error, &n);
  PyObject* code_obj = n == 0 ? (Py_INCREF(Py_None), Py_None) : str_n(code, n);
  PyObject* diagnostics = NULL;
  size_t count = charter_error_diagnostic_count(error);
  if (count > 0) {
    PyObject* make = error_class("Diagnostic");
    diagnostics = make == NULL ? NULL : PyTuple_New((Py_ssize_t)count);
    for (size_t i = 0; diagnostics != NULL && i < count; ++i) {
      charter_diagnostic d;
      charter_error_diagnostic(error, i, &d);
      PyObject* args = diagnostic_tuple(&d);
      PyObject* item = args == NULL ? NULL : PyObject_Call(make, args, NULL);
      Py_XDECREF(args);
      if (item == NULL) {
        Py_CLEAR(diagnostics);
        break;
      }
      PyTuple_SET_ITEM(diagnostics, (Py_ssize_t)i, item);
    }
    Py_XDECREF(make);
    if (diagnostics == NULL) {
      charter_error_free(error);
      Py_XDECREF(text);
      Py_XDECREF(code_obj);
      return NULL;
    }
  }
  /* The fault in full (every diagnostic with its source line), and where
   * it is when the library knows. */
  const char* detail = charter_error_detail(error, &n);
  PyObject* extra = PyDict_New();
  PyObject* detail_obj = str_n(detail, n);
  const char* source = charter_error_source(error, &n);
  uint32_t line = charter_error_line(error), column = charter_error_column(error);
  PyObject* source_obj = n == 0 || prefix != NULL ? NULL : str_n(source, n);
  PyObject* status_obj = PyUnicode_FromString(charter_status_name(charter_error_status(error)));
  PyObject* line_obj = PyLong_FromUnsignedLong(line);
  PyObject* column_obj = PyLong_FromUnsignedLong(column);
  if (extra == NULL || detail_obj == NULL || status_obj == NULL || line_obj == NULL || column_obj == NULL ||
      PyDict_SetItemString(extra, "detail", detail_obj) != 0 || PyDict_SetItemString(extra, "status", status_obj) != 0 ||
      (source_obj != NULL &&
       (PyDict_SetItemString(extra, "source", source_obj) != 0 || PyDict_SetItemString(extra, "line", line_obj) != 0 ||
        PyDict_SetItemString(extra, "column", column_obj) != 0))) {
    Py_CLEAR(extra);
  }
  Py_XDECREF(detail_obj);
  Py_XDECREF(source_obj);
  Py_XDECREF(status_obj);
  Py_XDECREF(line_obj);
  Py_XDECREF(column_obj);
  charter_error_free(error);
  return raise_extra(kind, text, code_obj, diagnostics, extra);
}

static PyObject* type_error(const char* what, const char* expected, PyObject* got) {
  PyErr_Format(PyExc_TypeError, "%s: expected %s, got %s", what, expected, Py_TYPE(got)->tp_name);
  return NULL;
}

/* ---- growable byte buffers ----------------------------------------------------------- */

typedef struct {
  char* data;
  size_t size;
  size_t capacity;
  char inline_data[256];
} Buffer;

static void buffer_init(Buffer* b) {
  b->data = b->inline_data;
  b->size = 0;
  b->capacity = sizeof(b->inline_data);
}

static void buffer_free(Buffer* b) {
  if (b->data != b->inline_data) PyMem_Free(b->data);
  buffer_init(b);
}

static int buffer_reserve(Buffer* b, size_t more) {
  if (b->size + more <= b->capacity) return 0;
  size_t capacity = b->capacity * 2;
  while (capacity < b->size + more) capacity *= 2;
  char* data = PyMem_Malloc(capacity);
  if (data == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  memcpy(data, b->data, b->size);
  if (b->data != b->inline_data) PyMem_Free(b->data);
  b->data = data;
  b->capacity = capacity;
  return 0;
}

static int buffer_add(Buffer* b, const char* s, size_t n) {
  if (buffer_reserve(b, n) != 0) return -1;
  memcpy(b->data + b->size, s, n);
  b->size += n;
  return 0;
}

static int buffer_char(Buffer* b, char c) { return buffer_add(b, &c, 1); }

/* A JSON string: `"`, `\` and control characters escaped, UTF-8 as it is. */
static int buffer_quoted(Buffer* b, const char* s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  if (buffer_char(b, '"') != 0) return -1;
  size_t run = 0;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    if (buffer_add(b, s + run, i - run) != 0) return -1;
    run = i + 1;
    char escape[6] = {'\\', (char)c, 0, 0, 0, 0};
    size_t len = 2;
    switch (c) {
      case '"': case '\\': break;
      case '\b': escape[1] = 'b'; break;
      case '\f': escape[1] = 'f'; break;
      case '\n': escape[1] = 'n'; break;
      case '\r': escape[1] = 'r'; break;
      case '\t': escape[1] = 't'; break;
      default:
        escape[1] = 'u';
        escape[2] = '0';
        escape[3] = '0';
        escape[4] = hex[c >> 4];
        escape[5] = hex[c & 0xF];
        len = 6;
    }
    if (buffer_add(b, escape, len) != 0) return -1;
  }
  if (buffer_add(b, s + run, n - run) != 0) return -1;
  return buffer_char(b, '"');
}

/* ---- where a value is, for messages ------------------------------------------------- */

/* Names a value in messages: a part of a request ("principal",
 * "requests[3].context"), then, inside a context, its keys and indices
 * ("context.tags[2]"). Written out only when a message needs it. */
typedef struct {
  Py_ssize_t request; /* index in a batch, or -1 */
  const char* field;
  int depth;
  struct {
    enum { SEG_KEY, SEG_INDEX, SEG_SET } kind;
    PyObject* key; /* borrowed str */
    Py_ssize_t index;
  } path[MAX_NESTING + 1];
} Where;

static void where_init(Where* w, Py_ssize_t request, const char* field) {
  w->request = request;
  w->field = field;
  w->depth = 0;
}

static PyObject* where_str(const Where* w) {
  PyObject* out = w->request < 0 ? PyUnicode_FromString(w->field)
                                 : PyUnicode_FromFormat("requests[%zd].%s", w->request, w->field);
  for (int i = 0; out != NULL && i < w->depth; ++i) {
    PyObject* next = NULL;
    switch (w->path[i].kind) {
      case SEG_KEY: next = PyUnicode_FromFormat("%U.%U", out, w->path[i].key); break;
      case SEG_INDEX: next = PyUnicode_FromFormat("%U[%zd]", out, w->path[i].index); break;
      case SEG_SET: next = PyUnicode_FromFormat("%U{}", out); break;
    }
    Py_DECREF(out);
    out = next;
  }
  return out;
}

/* RequestError "WHERE: message" (message a C string). */
static PyObject* where_error(const Where* w, const char* message) {
  PyObject* name = where_str(w);
  if (name == NULL) return NULL;
  PyObject* text = PyUnicode_FromFormat("%U: %s", name, message);
  Py_DECREF(name);
  return raise_steal("RequestError", text, NULL, NULL);
}

static PyObject* where_type_error(const Where* w, const char* suffix, const char* expected, PyObject* got) {
  PyObject* name = where_str(w);
  if (name == NULL) return NULL;
  PyErr_Format(PyExc_TypeError, "%U%s: expected %s, got %s", name, suffix, expected, Py_TYPE(got)->tp_name);
  Py_DECREF(name);
  return NULL;
}

/* ---- values from Python ----------------------------------------------------------- */

/* The UTF-8 of a str, valid while it lives (NULL with UnicodeEncodeError). */
static const char* utf8(PyObject* s, size_t* n) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(s, &size);
  *n = (size_t)size;
  return data;
}

/* An entity reference read from Python: views into `buffer` or into the
 * Python strs it came from (which the caller holds). */
typedef struct {
  charter_uid uid;
  Buffer buffer;
} Ref;

static int is_entity_uid(PyObject* o) {
  return entity_uid_type != NULL && PyObject_TypeCheck(o, (PyTypeObject*)entity_uid_type);
}

/* The type and id of a charter.EntityUid: borrowed from its fields. */
static int uid_fields(PyObject* o, PyObject** type, PyObject** id) {
  PyObject* t = PyObject_GetAttr(o, str_type);
  if (t == NULL) return -1;
  PyObject* i = PyObject_GetAttr(o, str_id);
  if (i == NULL) {
    Py_DECREF(t);
    return -1;
  }
  /* The object holds them: they outlive the call. */
  *type = t;
  *id = i;
  Py_DECREF(t);
  Py_DECREF(i);
  return PyUnicode_Check(t) && PyUnicode_Check(i) ? 0 : -1;
}

/* Checks a type as the parser reads one (RequestError "WHERE: message"). */
static int check_uid(const charter_uid* uid, const Where* w) {
  char* text = NULL;
  charter_error* error = NULL;
  if (charter_uid_format(uid, &text, NULL, &error) != CHARTER_OK) {
    PyObject* name = w == NULL ? NULL : where_str(w);
    if (w != NULL && name == NULL) {
      charter_error_free(error);
      return -1;
    }
    raise_error("RequestError", error, name);
    Py_XDECREF(name);
    return -1;
  }
  charter_free(text);
  return 0;
}

/* An entity reference: 'Type::"id"', {"type": ..., "id": ...} (or Cedar's
 * {"__entity": {...}}), or a charter.EntityUid. */
static int to_ref(PyObject* o, const Where* w, Ref* out) {
  buffer_init(&out->buffer);
  if (PyUnicode_Check(o)) {
    size_t n = 0;
    const char* text = utf8(o, &n);
    if (text == NULL) return -1;
    if (buffer_reserve(&out->buffer, n) != 0) return -1;
    charter_error* error = NULL;
    if (charter_uid_parse(text, n, out->buffer.data, out->buffer.capacity, &out->uid, &error) != CHARTER_OK) {
      PyObject* name = where_str(w);
      if (name == NULL) {
        charter_error_free(error);
        return -1;
      }
      raise_error("RequestError", error, name);
      Py_DECREF(name);
      return -1;
    }
    return 0;
  }
  if (PyDict_Check(o)) {
    PyObject* inner = PyDict_GetItemString(o, "__entity"); /* borrowed */
    int nested = 0;
    if (inner != NULL && PyDict_Size(o) == 1) {
      if (!PyDict_Check(inner)) {
        where_type_error(w, ".__entity", "a dict {'type': ..., 'id': ...}", inner);
        return -1;
      }
      o = inner;
      nested = 1;
    }
    (void)nested;
    PyObject* type = PyDict_GetItemString(o, "type");
    PyObject* id = PyDict_GetItemString(o, "id");
    if (type == NULL || id == NULL || PyDict_Size(o) != 2) {
      where_error(w, "an entity reference is a dict with exactly the keys \"type\" and \"id\"");
      return -1;
    }
    if (!PyUnicode_Check(type)) {
      where_type_error(w, "[\"type\"]", "str", type);
      return -1;
    }
    if (!PyUnicode_Check(id)) {
      where_type_error(w, "[\"id\"]", "str", id);
      return -1;
    }
    out->uid.type = utf8(type, &out->uid.type_length);
    if (out->uid.type == NULL) return -1;
    out->uid.id = utf8(id, &out->uid.id_length);
    if (out->uid.id == NULL) return -1;
    return check_uid(&out->uid, w);
  }
  if (is_entity_uid(o)) {
    PyObject *type = NULL, *id = NULL;
    if (uid_fields(o, &type, &id) != 0) return -1;
    out->uid.type = utf8(type, &out->uid.type_length);
    if (out->uid.type == NULL) return -1;
    out->uid.id = utf8(id, &out->uid.id_length);
    return out->uid.id == NULL ? -1 : 0;
  }
  where_type_error(w, "",
                   "an entity reference (a str 'Type::\"id\"', a dict {'type': ..., 'id': ...} or a "
                   "charter.EntityUid)",
                   o);
  return -1;
}

static void ref_free(Ref* r) { buffer_free(&r->buffer); }

/* Appends a Python value as Cedar's JSON value encoding. */
static int append_json(Buffer* b, PyObject* v, Where* w) {
  if (w->depth >= MAX_NESTING) {
    char message[64];
    snprintf(message, sizeof(message), "values nest deeper than %d levels", MAX_NESTING);
    where_error(w, message);
    return -1;
  }
  if (PyBool_Check(v)) return v == Py_True ? buffer_add(b, "true", 4) : buffer_add(b, "false", 5);
  if (PyLong_Check(v)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow != 0) {
      PyObject* name = where_str(w);
      if (name == NULL) return -1;
      raise_steal("RequestError",
                  PyUnicode_FromFormat("%U: %S does not fit in 64 bits (a Cedar Long)", name, v), NULL, NULL);
      Py_DECREF(name);
      return -1;
    }
    if (x == -1 && PyErr_Occurred()) return -1;
    char digits[32];
    int n = snprintf(digits, sizeof(digits), "%lld", x);
    return buffer_add(b, digits, (size_t)n);
  }
  if (PyUnicode_Check(v)) {
    size_t n = 0;
    const char* s = utf8(v, &n);
    return s == NULL ? -1 : buffer_quoted(b, s, n);
  }
  if (PyDict_Check(v)) {
    if (buffer_char(b, '{') != 0) return -1;
    Py_ssize_t pos = 0;
    PyObject *key = NULL, *item = NULL;
    int first = 1;
    while (PyDict_Next(v, &pos, &key, &item)) {
      if (!PyUnicode_Check(key)) {
        where_type_error(w, " (a key)", "str", key);
        return -1;
      }
      size_t n = 0;
      const char* name = utf8(key, &n);
      if (name == NULL) return -1;
      if (!first && buffer_char(b, ',') != 0) return -1;
      first = 0;
      if (buffer_quoted(b, name, n) != 0 || buffer_char(b, ':') != 0) return -1;
      w->path[w->depth].kind = SEG_KEY;
      w->path[w->depth].key = key;
      ++w->depth;
      int failed = append_json(b, item, w);
      --w->depth;
      if (failed) return -1;
    }
    return buffer_char(b, '}');
  }
  if (PyList_Check(v) || PyTuple_Check(v)) {
    if (buffer_char(b, '[') != 0) return -1;
    const int list = PyList_Check(v);
    for (Py_ssize_t i = 0; i < (list ? PyList_GET_SIZE(v) : PyTuple_GET_SIZE(v)); ++i) {
      if (i > 0 && buffer_char(b, ',') != 0) return -1;
      w->path[w->depth].kind = SEG_INDEX;
      w->path[w->depth].index = i;
      ++w->depth;
      int failed = append_json(b, list ? PyList_GET_ITEM(v, i) : PyTuple_GET_ITEM(v, i), w);
      --w->depth;
      if (failed) return -1;
    }
    return buffer_char(b, ']');
  }
  if (PyAnySet_Check(v)) {
    PyObject* it = PyObject_GetIter(v);
    if (it == NULL || buffer_char(b, '[') != 0) {
      Py_XDECREF(it);
      return -1;
    }
    PyObject* item = NULL;
    int first = 1;
    while ((item = PyIter_Next(it)) != NULL) {
      int failed = !first && buffer_char(b, ',') != 0;
      first = 0;
      if (!failed) {
        w->path[w->depth].kind = SEG_SET;
        ++w->depth;
        failed = append_json(b, item, w);
        --w->depth;
      }
      Py_DECREF(item);
      if (failed) {
        Py_DECREF(it);
        return -1;
      }
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) return -1;
    return buffer_char(b, ']');
  }
  if (is_entity_uid(v)) {
    PyObject *type = NULL, *id = NULL;
    size_t tn = 0, in = 0;
    if (uid_fields(v, &type, &id) != 0) return -1;
    const char* t = utf8(type, &tn);
    const char* i = t == NULL ? NULL : utf8(id, &in);
    if (i == NULL) return -1;
    if (buffer_add(b, "{\"__entity\":{\"type\":", 20) != 0 || buffer_quoted(b, t, tn) != 0 ||
        buffer_add(b, ",\"id\":", 6) != 0 || buffer_quoted(b, i, in) != 0 || buffer_add(b, "}}", 2) != 0) {
      return -1;
    }
    return 0;
  }
  if (PyFloat_Check(v)) {
    where_type_error(w, "",
                     "a Cedar value (Cedar has no floating-point numbers: use an int, or a decimal as "
                     "{'__extn': {'fn': 'decimal', 'arg': '1.5'}})",
                     v);
    return -1;
  }
  where_type_error(w, "", "a Cedar value (bool, int, str, list, set, dict or charter.EntityUid)", v);
  return -1;
}

/* ---- contexts as values (charter_value, no JSON text) ------------------------------ */

/* to_value's results: 0 made, -1 a Python exception is set, NEEDS_JSON the
 * dict holds one of Cedar's escapes in a shape a charter_value cannot say
 * exactly (`__expr`, an `__extn` call whose argument is not a str or that
 * has `args`): the caller writes the context as JSON text instead, as
 * before, so that every context reads as it always has. */
#define NEEDS_JSON 1

static int value_failed(charter_error* error) {
  raise_error("RequestError", error, NULL);
  return -1;
}

/* d[key] for an interned key, borrowed, or NULL (never an error: the keys
 * are str, whose hash cannot fail). */
static PyObject* member(PyObject* d, int key) { return PyDict_GetItem(d, escape_keys[key]); }

/* A str member of a dict, borrowed, or NULL. */
static PyObject* str_member(PyObject* d, int key) {
  PyObject* v = member(d, key);
  return v != NULL && PyUnicode_Check(v) ? v : NULL;
}

/* Whether a dict holds an escape a value cannot say exactly (NEEDS_JSON):
 * `__expr`, or an extension call {"fn": str, ...} with `args` or a non-str
 * `arg`, as itself or under `__extn`. */
static int needs_json(PyObject* d) {
  if (member(d, KEY_EXPR) != NULL) return 1;
  PyObject* call = member(d, KEY_EXTN);
  PyObject* forms[2] = {d, call};
  for (int i = 0; i < 2; ++i) {
    PyObject* c = forms[i];
    if (c == NULL || !PyDict_Check(c) || str_member(c, KEY_FN) == NULL) continue;
    PyObject* arg = member(c, KEY_ARG);
    if ((arg != NULL && !PyUnicode_Check(arg)) || (arg == NULL && member(c, KEY_ARGS) != NULL)) return 1;
  }
  return 0;
}

static int to_value(PyObject* v, Where* w, charter_value** out);

/* The fields of a dict added to `record` (a new charter_value record). */
static int add_fields(charter_value* record, PyObject* d, Where* w) {
  Py_ssize_t pos = 0;
  PyObject *key = NULL, *item = NULL;
  while (PyDict_Next(d, &pos, &key, &item)) {
    if (!PyUnicode_Check(key)) {
      where_type_error(w, " (a key)", "str", key);
      return -1;
    }
    size_t n = 0;
    const char* name = utf8(key, &n);
    if (name == NULL) return -1;
    w->path[w->depth].kind = SEG_KEY;
    w->path[w->depth].key = key;
    ++w->depth;
    charter_value* field = NULL;
    int made = to_value(item, w, &field);
    --w->depth;
    if (made != 0) return made;
    charter_error* error = NULL;
    if (charter_value_record_add(record, name, n, field, &error) != CHARTER_OK) {
      charter_value_free(field);
      return value_failed(error);
    }
  }
  return 0;
}

/* The elements of a list, tuple, set or frozenset added to a new set. */
static int add_elements(charter_value* set, PyObject* v, Where* w) {
  charter_error* error = NULL;
  if (PyList_Check(v) || PyTuple_Check(v)) {
    const int list = PyList_Check(v);
    for (Py_ssize_t i = 0; i < (list ? PyList_GET_SIZE(v) : PyTuple_GET_SIZE(v)); ++i) {
      w->path[w->depth].kind = SEG_INDEX;
      w->path[w->depth].index = i;
      ++w->depth;
      charter_value* element = NULL;
      int made = to_value(list ? PyList_GET_ITEM(v, i) : PyTuple_GET_ITEM(v, i), w, &element);
      --w->depth;
      if (made != 0) return made;
      if (charter_value_set_add(set, element, &error) != CHARTER_OK) {
        charter_value_free(element);
        return value_failed(error);
      }
    }
    return 0;
  }
  PyObject* it = PyObject_GetIter(v);
  if (it == NULL) return -1;
  PyObject* item = NULL;
  int made = 0;
  while (made == 0 && (item = PyIter_Next(it)) != NULL) {
    w->path[w->depth].kind = SEG_SET;
    ++w->depth;
    charter_value* element = NULL;
    made = to_value(item, w, &element);
    --w->depth;
    Py_DECREF(item);
    if (made == 0 && charter_value_set_add(set, element, &error) != CHARTER_OK) {
      charter_value_free(element);
      made = value_failed(error);
    }
  }
  Py_DECREF(it);
  if (made == 0 && PyErr_Occurred()) return -1;
  return made;
}

/* A Python value as a charter_value, with append_json's checks and
 * messages: the same values the JSON text of append_json gives. */
static int to_value(PyObject* v, Where* w, charter_value** out) {
  if (w->depth >= MAX_NESTING) {
    char message[64];
    snprintf(message, sizeof(message), "values nest deeper than %d levels", MAX_NESTING);
    where_error(w, message);
    return -1;
  }
  charter_error* error = NULL;
  charter_status status = CHARTER_OK;
  if (PyBool_Check(v)) {
    status = charter_value_bool(v == Py_True, out, &error);
  } else if (PyLong_Check(v)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow != 0) {
      PyObject* name = where_str(w);
      if (name == NULL) return -1;
      raise_steal("RequestError",
                  PyUnicode_FromFormat("%U: %S does not fit in 64 bits (a Cedar Long)", name, v), NULL, NULL);
      Py_DECREF(name);
      return -1;
    }
    if (x == -1 && PyErr_Occurred()) return -1;
    status = charter_value_long((int64_t)x, out, &error);
  } else if (PyUnicode_Check(v)) {
    size_t n = 0;
    const char* s = utf8(v, &n);
    if (s == NULL) return -1;
    status = charter_value_string(s, n, out, &error);
  } else if (PyDict_Check(v)) {
    if (needs_json(v)) return NEEDS_JSON;
    if (PyDict_Size(v) == 1) {
      /* Cedar's escapes, as the JSON reader takes them: a dict of one key. */
      PyObject* inner = member(v, KEY_EXTN);
      PyObject *fn = NULL, *arg = NULL;
      if (inner != NULL && PyDict_Check(inner) && (fn = str_member(inner, KEY_FN)) != NULL &&
          (arg = str_member(inner, KEY_ARG)) != NULL) {
        size_t fn_n = 0, arg_n = 0;
        const char* f = utf8(fn, &fn_n);
        const char* a = f == NULL ? NULL : utf8(arg, &arg_n);
        if (a == NULL) return -1;
        status = charter_value_extension(f, fn_n, a, arg_n, out, &error);
        return status == CHARTER_OK ? 0 : value_failed(error);
      }
      inner = member(v, KEY_ENTITY);
      PyObject *type = NULL, *id = NULL;
      if (inner != NULL && PyDict_Check(inner) && PyDict_Size(inner) >= 2 &&
          (type = PyDict_GetItem(inner, str_type)) != NULL && PyUnicode_Check(type) &&
          (id = PyDict_GetItem(inner, str_id)) != NULL && PyUnicode_Check(id)) {
        charter_uid uid;
        uid.type = utf8(type, &uid.type_length);
        uid.id = uid.type == NULL ? NULL : utf8(id, &uid.id_length);
        if (uid.id == NULL) return -1;
        if (uid.type_length > 0) {
          status = charter_value_entity(&uid, out, &error);
          return status == CHARTER_OK ? 0 : value_failed(error);
        }
        /* An empty type: the JSON reader's message, from a record. */
      }
    }
    if (charter_value_record(out, &error) != CHARTER_OK) return value_failed(error);
    int made = add_fields(*out, v, w);
    if (made != 0) {
      charter_value_free(*out);
      *out = NULL;
    }
    return made;
  } else if (PyList_Check(v) || PyTuple_Check(v) || PyAnySet_Check(v)) {
    if (charter_value_set(out, &error) != CHARTER_OK) return value_failed(error);
    int made = add_elements(*out, v, w);
    if (made != 0) {
      charter_value_free(*out);
      *out = NULL;
    }
    return made;
  } else if (is_entity_uid(v)) {
    PyObject *type = NULL, *id = NULL;
    if (uid_fields(v, &type, &id) != 0) return -1;
    charter_uid uid;
    uid.type = utf8(type, &uid.type_length);
    uid.id = uid.type == NULL ? NULL : utf8(id, &uid.id_length);
    if (uid.id == NULL) return -1;
    status = charter_value_entity(&uid, out, &error);
  } else if (PyFloat_Check(v)) {
    where_type_error(w, "",
                     "a Cedar value (Cedar has no floating-point numbers: use an int, or a decimal as "
                     "{'__extn': {'fn': 'decimal', 'arg': '1.5'}})",
                     v);
    return -1;
  } else {
    where_type_error(w, "", "a Cedar value (bool, int, str, list, set, dict or charter.EntityUid)", v);
    return -1;
  }
  return status == CHARTER_OK ? 0 : value_failed(error);
}

/* A context dict as a charter_value record: 0 (*out made; NULL for an
 * empty dict), -1 (an exception), or NEEDS_JSON. */
static int context_value(PyObject* context, Where* w, charter_value** out) {
  *out = NULL;
  if (PyDict_Size(context) == 0) return 0;
  charter_error* error = NULL;
  if (charter_value_record(out, &error) != CHARTER_OK) return value_failed(error);
  int made = add_fields(*out, context, w);
  if (made != 0) {
    charter_value_free(*out);
    *out = NULL;
  }
  return made;
}

/* "SOURCE:LINE:COL: message" without its position; the text itself when it
 * has none. */
static const char* without_position(const char* text, size_t n, size_t* out_n) {
  for (size_t colon = 0; colon < n; ++colon) {
    if (text[colon] != ':') continue;
    size_t i = colon + 1;
    int numbers = 0;
    while (numbers < 2) {
      size_t digits = i;
      while (i < n && text[i] >= '0' && text[i] <= '9') ++i;
      if (i == digits || i >= n || text[i] != ':') break;
      ++i;
      ++numbers;
    }
    if (numbers == 2 && i < n && text[i] == ' ') {
      *out_n = n - i - 1;
      return text + i + 1;
    }
  }
  *out_n = n;
  return text;
}

/* A context: None, a dict of Cedar values (written as JSON into `json`), or
 * its JSON text. *text and *from_dict say which. */
static int context_text(PyObject* context, Where* w, Buffer* json, const char** text, size_t* n, int* from_dict) {
  *from_dict = 0;
  *text = NULL;
  *n = 0;
  if (context == NULL || context == Py_None) {
    *from_dict = 1;
    return 0;
  }
  if (PyDict_Check(context)) {
    *from_dict = 1;
    if (PyDict_Size(context) == 0) return 0;
    if (append_json(json, context, w) != 0) return -1;
    *text = json->data;
    *n = json->size;
    return 0;
  }
  if (PyUnicode_Check(context)) {
    *text = utf8(context, n);
    return *text == NULL ? -1 : 0;
  }
  where_type_error(w, "", "a dict, JSON text (str) or None", context);
  return -1;
}

/* A fault in a context: as Charter gives it for text the caller wrote; for
 * a dict, whose JSON the caller never saw, the position replaced by the
 * context's name. */
static void context_error(charter_error* error, int from_dict, PyObject* source) {
  if (!from_dict) {
    raise_error("RequestError", error, NULL);
    return;
  }
  size_t n = 0, bare_n = 0;
  const char* message = charter_error_message(error, &n);
  const char* bare = without_position(message, n, &bare_n);
  PyObject* text = NULL;
  if (bare_n == n) {
    text = str_n(message, n);
  } else {
    PyObject* rest = str_n(bare, bare_n);
    text = rest == NULL ? NULL : PyUnicode_FromFormat("%U: %U", source, rest);
    Py_XDECREF(rest);
  }
  charter_error_free(error);
  raise_steal("RequestError", text, NULL, NULL);
}

/* ---- charter.Decision ------------------------------------------------------------- */
/* A plain CPython type: a decision is made for every call. It holds Python
 * values only (tuples of str cannot form a cycle: no GC support). */

typedef struct {
  PyObject_HEAD
  PyObject* reasons; /* tuple of str */
  PyObject* errors;  /* tuple of (str, str) */
  int allowed;
} DecisionObject;

static PyTypeObject* decision_type = NULL;

static void decision_dealloc(PyObject* self) {
  DecisionObject* d = (DecisionObject*)self;
  Py_XDECREF(d->reasons);
  Py_XDECREF(d->errors);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

/* A new Decision; steals `reasons` and `errors`. */
static PyObject* new_decision(int allowed, PyObject* reasons, PyObject* errors) {
  DecisionObject* d = PyObject_New(DecisionObject, decision_type);
  if (d == NULL) {
    Py_DECREF(reasons);
    Py_DECREF(errors);
    return NULL;
  }
  d->allowed = allowed;
  d->reasons = reasons;
  d->errors = errors;
  return (PyObject*)d;
}

static PyObject* decision_allowed(PyObject* self, void* unused) {
  (void)unused;
  return PyBool_FromLong(((DecisionObject*)self)->allowed);
}
static PyObject* decision_name(PyObject* self, void* unused) {
  (void)unused;
  PyObject* s = ((DecisionObject*)self)->allowed ? str_allow : str_deny;
  Py_INCREF(s);
  return s;
}
static PyObject* decision_reasons(PyObject* self, void* unused) {
  (void)unused;
  return PySequence_List(((DecisionObject*)self)->reasons);
}
static PyObject* decision_errors(PyObject* self, void* unused) {
  (void)unused;
  return PySequence_List(((DecisionObject*)self)->errors);
}
static int decision_bool(PyObject* self) { return ((DecisionObject*)self)->allowed; }

static PyObject* decision_repr(PyObject* self) {
  DecisionObject* d = (DecisionObject*)self;
  PyObject* reasons = PySequence_List(d->reasons);
  PyObject* errors = reasons == NULL ? NULL : PySequence_List(d->errors);
  PyObject* out = errors == NULL ? NULL
                                 : PyUnicode_FromFormat("Decision(decision='%s', reasons=%R, errors=%R)",
                                                        d->allowed ? "allow" : "deny", reasons, errors);
  Py_XDECREF(reasons);
  Py_XDECREF(errors);
  return out;
}

static PyObject* decision_compare(PyObject* a, PyObject* b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, decision_type)) Py_RETURN_NOTIMPLEMENTED;
  DecisionObject* x = (DecisionObject*)a;
  DecisionObject* y = (DecisionObject*)b;
  int equal = x->allowed == y->allowed;
  if (equal) equal = PyObject_RichCompareBool(x->reasons, y->reasons, Py_EQ);
  if (equal == 1) equal = PyObject_RichCompareBool(x->errors, y->errors, Py_EQ);
  if (equal < 0) return NULL;
  return PyBool_FromLong(op == Py_EQ ? equal : !equal);
}

static int buffer_quoted_str(Buffer* b, PyObject* s) {
  size_t n = 0;
  const char* data = utf8(s, &n);
  return data == NULL ? -1 : buffer_quoted(b, data, n);
}

/* The decision as `charter authorize --format json` prints one. */
static PyObject* decision_to_json(PyObject* self, PyObject* unused) {
  (void)unused;
  DecisionObject* d = (DecisionObject*)self;
  Buffer b;
  buffer_init(&b);
  const char* head = d->allowed ? "{\"decision\":\"allow\",\"reasons\":[" : "{\"decision\":\"deny\",\"reasons\":[";
  int failed = buffer_add(&b, head, strlen(head));
  for (Py_ssize_t i = 0; !failed && i < PyTuple_GET_SIZE(d->reasons); ++i) {
    failed = (i > 0 && buffer_char(&b, ',') != 0) || buffer_quoted_str(&b, PyTuple_GET_ITEM(d->reasons, i)) != 0;
  }
  failed = failed || buffer_add(&b, "],\"errors\":[", 12) != 0;
  for (Py_ssize_t i = 0; !failed && i < PyTuple_GET_SIZE(d->errors); ++i) {
    PyObject* pair = PyTuple_GET_ITEM(d->errors, i);
    failed = (i > 0 && buffer_char(&b, ',') != 0) || buffer_add(&b, "{\"policy\":", 10) != 0 ||
             buffer_quoted_str(&b, PyTuple_GET_ITEM(pair, 0)) != 0 || buffer_add(&b, ",\"message\":", 11) != 0 ||
             buffer_quoted_str(&b, PyTuple_GET_ITEM(pair, 1)) != 0 || buffer_char(&b, '}') != 0;
  }
  failed = failed || buffer_add(&b, "]}", 2) != 0;
  PyObject* out = failed ? NULL : str_n(b.data, b.size);
  buffer_free(&b);
  return out;
}

static PyGetSetDef decision_getset[] = {
    {"allowed", decision_allowed, NULL, "Whether the request is allowed.", NULL},
    {"decision", decision_name, NULL, "'allow' or 'deny'.", NULL},
    {"reasons", decision_reasons, NULL,
     "The determining policies' ids (a new list): the satisfied forbids when any is satisfied, else the\n"
     "satisfied permits (empty on default deny), in policy-set order.",
     NULL},
    {"errors", decision_errors, NULL,
     "The policies that erred and were skipped, as (policy_id, message) pairs (a new list).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef decision_methods[] = {
    {"to_json", decision_to_json, METH_NOARGS,
     "to_json() -> str\n\nThe decision as `charter authorize --format json` prints it:\n"
     "{\"decision\", \"reasons\", \"errors\": [{\"policy\", \"message\"}]}."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot decision_slots[] = {
    {Py_tp_dealloc, (void*)decision_dealloc},
    {Py_tp_repr, (void*)decision_repr},
    {Py_tp_richcompare, (void*)decision_compare},
    {Py_tp_hash, (void*)PyObject_HashNotImplemented},
    {Py_nb_bool, (void*)decision_bool},
    {Py_tp_getset, decision_getset},
    {Py_tp_methods, decision_methods},
    {Py_tp_doc, "The answer to one request: allowed, decision, reasons and errors. Its truth\n"
                "value is `allowed`."},
    {0, NULL},
};

/* ---- schemas ------------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD
  charter_schema* schema;
} SchemaObject;

static PyTypeObject* schema_type = NULL;

static void schema_dealloc(PyObject* self) {
  charter_schema_free(((SchemaObject*)self)->schema);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

static const charter_schema* schema_of(PyObject* o) {
  return o == NULL || o == Py_None ? NULL : ((SchemaObject*)o)->schema;
}

/* The fingerprint of a schema object (NULL or None: ""). */
static const char* fingerprint_of(PyObject* schema, size_t* n) {
  if (schema == NULL || schema == Py_None) {
    *n = 0;
    return "";
  }
  return charter_schema_fingerprint(((SchemaObject*)schema)->schema, n);
}

/* _schema_parse(cls, text) -> cls */
static PyObject* m_schema_parse(PyObject* module, PyObject* args) {
  (void)module;
  PyTypeObject* cls = NULL;
  PyObject* text = NULL;
  if (!PyArg_ParseTuple(args, "O!U", &PyType_Type, &cls, &text)) return NULL;
  if (!PyType_IsSubtype(cls, schema_type)) return type_error("cls", "a charter.Schema class", (PyObject*)cls);
  size_t n = 0;
  const char* t = utf8(text, &n);
  if (t == NULL) return NULL;
  charter_schema* schema = NULL;
  charter_error* error = NULL;
  charter_status status;
  Py_BEGIN_ALLOW_THREADS
  status = charter_schema_parse(t, n, NULL, 0, &schema, &error);
  Py_END_ALLOW_THREADS
  if (status != CHARTER_OK) return raise_error("SchemaError", error, NULL);
  SchemaObject* out = (SchemaObject*)cls->tp_alloc(cls, 0);
  if (out == NULL) {
    charter_schema_free(schema);
    return NULL;
  }
  out->schema = schema;
  return (PyObject*)out;
}

static PyObject* string_list(size_t count, const char* (*at)(const charter_schema*, size_t, size_t*),
                             const charter_schema* s) {
  PyObject* out = PyList_New((Py_ssize_t)count);
  for (size_t i = 0; out != NULL && i < count; ++i) {
    size_t n = 0;
    const char* p = at(s, i, &n);
    PyObject* item = str_n(p, n);
    if (item == NULL) {
      Py_CLEAR(out);
      break;
    }
    PyList_SET_ITEM(out, (Py_ssize_t)i, item);
  }
  return out;
}

/* _schema_info(schema) -> (json, cedar, fingerprint, entity_types, actions) */
static PyObject* m_schema_info(PyObject* module, PyObject* arg) {
  (void)module;
  if (!PyObject_TypeCheck(arg, schema_type)) return type_error("schema", "charter.Schema", arg);
  const charter_schema* s = ((SchemaObject*)arg)->schema;
  size_t jn = 0, cn = 0, fn = 0;
  const char* json = charter_schema_json(s, &jn);
  const char* cedar = charter_schema_cedar(s, &cn);
  const char* fingerprint = charter_schema_fingerprint(s, &fn);
  return Py_BuildValue("(NNNNN)", str_n(json, jn), str_n(cedar, cn), str_n(fingerprint, fn),
                       string_list(charter_schema_entity_type_count(s), charter_schema_entity_type, s),
                       string_list(charter_schema_action_count(s), charter_schema_action, s));
}

static PyType_Slot schema_slots[] = {
    {Py_tp_dealloc, (void*)schema_dealloc},
    {Py_tp_doc, "A schema read by the C API (charter_schema)."},
    {0, NULL},
};

/* ---- entity stores -------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  charter_entities* entities;
} EntitiesObject;

static PyTypeObject* entities_type = NULL;

static void entities_dealloc(PyObject* self) {
  charter_entities_free(((EntitiesObject*)self)->entities);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyObject* wrap_entities(PyTypeObject* cls, charter_entities* entities) {
  EntitiesObject* out = (EntitiesObject*)cls->tp_alloc(cls, 0);
  if (out == NULL) {
    charter_entities_free(entities);
    return NULL;
  }
  out->entities = entities;
  return (PyObject*)out;
}

/* _entities_from_json(cls, text, schema, source_name) -> cls */
static PyObject* m_entities_from_json(PyObject* module, PyObject* args) {
  (void)module;
  PyTypeObject* cls = NULL;
  PyObject *text = NULL, *schema = NULL, *source = NULL;
  if (!PyArg_ParseTuple(args, "O!OOU", &PyType_Type, &cls, &text, &schema, &source)) return NULL;
  if (!PyUnicode_Check(text)) return type_error("text", "str", text);
  if (schema != Py_None && !PyObject_TypeCheck(schema, schema_type)) {
    return type_error("schema", "a charter.Schema or schema text (str)", schema);
  }
  size_t n = 0, sn = 0;
  const char* t = utf8(text, &n);
  const char* s = t == NULL ? NULL : utf8(source, &sn);
  if (s == NULL) return NULL;
  charter_entities* entities = NULL;
  charter_error* error = NULL;
  charter_status status;
  const charter_schema* with = schema_of(schema);
  Py_BEGIN_ALLOW_THREADS
  status = charter_entities_from_json_with(t, n, with, s, sn, &entities, &error);
  Py_END_ALLOW_THREADS
  if (status != CHARTER_OK) return raise_error("EntitiesError", error, NULL);
  return wrap_entities(cls, entities);
}

/* _entities_extend(store, text) -> type(store) */
static PyObject* m_entities_extend(PyObject* module, PyObject* args) {
  (void)module;
  PyObject *store = NULL, *text = NULL;
  if (!PyArg_ParseTuple(args, "O!O", entities_type, &store, &text)) return NULL;
  if (!PyUnicode_Check(text)) return type_error("text", "str", text);
  size_t n = 0;
  const char* t = utf8(text, &n);
  if (t == NULL) return NULL;
  charter_entities* entities = NULL;
  charter_error* error = NULL;
  charter_status status;
  const charter_entities* base = ((EntitiesObject*)store)->entities;
  Py_BEGIN_ALLOW_THREADS
  status = charter_entities_extend(base, t, n, &entities, &error);
  Py_END_ALLOW_THREADS
  if (status != CHARTER_OK) return raise_error("EntitiesError", error, NULL);
  return wrap_entities(Py_TYPE(store), entities);
}

static PyObject* entities_len_obj(PyObject* module, PyObject* store) {
  (void)module;
  if (!PyObject_TypeCheck(store, entities_type)) return type_error("entities", "charter.Entities", store);
  return PyLong_FromSize_t(charter_entities_size(((EntitiesObject*)store)->entities));
}

/* _entities_uids(store) -> list of (type, id) */
static PyObject* m_entities_uids(PyObject* module, PyObject* store) {
  (void)module;
  if (!PyObject_TypeCheck(store, entities_type)) return type_error("entities", "charter.Entities", store);
  const charter_entities* e = ((EntitiesObject*)store)->entities;
  PyObject* out = PyList_New(0);
  charter_uid uid;
  for (size_t i = 0; out != NULL && charter_entities_uid(e, i, &uid); ++i) {
    PyObject* pair = Py_BuildValue("(NN)", str_n(uid.type, uid.type_length), str_n(uid.id, uid.id_length));
    if (pair == NULL || PyList_Append(out, pair) != 0) Py_CLEAR(out);
    Py_XDECREF(pair);
  }
  return out;
}

/* _entities_contains(store, ref) -> bool */
static PyObject* m_entities_contains(PyObject* module, PyObject* args) {
  (void)module;
  PyObject *store = NULL, *ref = NULL;
  if (!PyArg_ParseTuple(args, "O!O", entities_type, &store, &ref)) return NULL;
  Where w;
  where_init(&w, -1, "uid");
  Ref r;
  if (to_ref(ref, &w, &r) != 0) {
    ref_free(&r);
    return NULL;
  }
  int found = charter_entities_contains(((EntitiesObject*)store)->entities, &r.uid);
  ref_free(&r);
  return PyBool_FromLong(found);
}

static PyType_Slot entities_slots[] = {
    {Py_tp_dealloc, (void*)entities_dealloc},
    {Py_tp_doc, "An entity store read by the C API (charter_entities)."},
    {0, NULL},
};

/* ---- requests ------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  charter_request* request;
  PyObject* schema; /* the charter.Schema it was read with, or None */
} RequestObject;

/* A new object of `cls` (charter.Request or a subclass) that owns `request`
 * (freed here when the object cannot be made) and holds `schema`. */
static PyObject* wrap_request(PyTypeObject* cls, charter_request* request, PyObject* schema) {
  RequestObject* out = (RequestObject*)cls->tp_alloc(cls, 0);
  if (out == NULL) {
    charter_request_free(request);
    return NULL;
  }
  out->request = request;
  Py_INCREF(schema);
  out->schema = schema;
  return (PyObject*)out;
}

static PyTypeObject* request_type = NULL;

static void request_dealloc(PyObject* self) {
  RequestObject* r = (RequestObject*)self;
  charter_request_free(r->request);
  Py_XDECREF(r->schema);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

/* A request from its Python parts, read with `schema` (NULL: none);
 * `index` is its place in a batch, or -1. */
static charter_request* make_request(PyObject* principal, PyObject* action, PyObject* resource, PyObject* context,
                                     const charter_schema* schema, Py_ssize_t index) {
  Ref refs[3];
  static const char* const fields[3] = {"principal", "action", "resource"};
  PyObject* parts[3] = {principal, action, resource};
  int made = 0;
  charter_request* request = NULL;
  Where w;
  Buffer json;
  buffer_init(&json);
  for (; made < 3; ++made) {
    where_init(&w, index, fields[made]);
    if (to_ref(parts[made], &w, &refs[made]) != 0) {
      ++made;
      goto done;
    }
  }
  where_init(&w, index, "context");
  const char* text = NULL;
  size_t n = 0;
  int from_dict = 0;
  /* The context's name in messages; a Python str only for a message. */
  char name[48] = "context";
  size_t sn = 7;
  if (index >= 0) sn = (size_t)snprintf(name, sizeof(name), "requests[%zd].context", index);
  charter_error* error = NULL;
  charter_status status = CHARTER_OK;
  if (context == NULL || context == Py_None || PyDict_Check(context)) {
    /* A dict becomes a value, with no JSON text (unless it holds an escape
     * a value cannot say: then its JSON, as before); none is NULL. */
    charter_value* value = NULL;
    int made = context == NULL || context == Py_None ? 0 : context_value(context, &w, &value);
    if (made < 0) goto done;
    if (made == 0) {
      status = charter_request_new_value(&refs[0].uid, &refs[1].uid, &refs[2].uid, value, schema, name, sn, &request,
                                         &error);
      charter_value_free(value);
      from_dict = 1;
      goto made;
    }
  }
  if (context_text(context, &w, &json, &text, &n, &from_dict) != 0) goto done;
  status = charter_request_new_with(&refs[0].uid, &refs[1].uid, &refs[2].uid, text, n, schema, name, sn, &request,
                                    &error);
made:
  if (status != CHARTER_OK) {
    request = NULL;
    PyObject* source = PyUnicode_FromStringAndSize(name, (Py_ssize_t)sn);
    if (source == NULL) {
      charter_error_free(error);
    } else {
      context_error(error, from_dict, source);
      Py_DECREF(source);
    }
  }
done:
  for (int i = 0; i < made; ++i) ref_free(&refs[i]);
  buffer_free(&json);
  return request;
}

/* _request_new(cls, principal, action, resource, context, schema) -> cls */
static PyObject* m_request_new(PyObject* module, PyObject* args) {
  (void)module;
  PyTypeObject* cls = NULL;
  PyObject *p = NULL, *a = NULL, *r = NULL, *c = NULL, *schema = NULL;
  if (!PyArg_ParseTuple(args, "O!OOOOO", &PyType_Type, &cls, &p, &a, &r, &c, &schema)) return NULL;
  if (schema != Py_None && !PyObject_TypeCheck(schema, schema_type)) return type_error("schema", "charter.Schema", schema);
  charter_request* request = make_request(p, a, r, c, schema_of(schema), -1);
  if (request == NULL) return NULL;
  return wrap_request(cls, request, schema);
}

/* _request_from_json(cls, text) -> cls: Charter's request JSON, read
 * without a schema (charter_request_from_json). */
static PyObject* m_request_from_json(PyObject* module, PyObject* args) {
  (void)module;
  PyTypeObject* cls = NULL;
  PyObject* text = NULL;
  if (!PyArg_ParseTuple(args, "O!O", &PyType_Type, &cls, &text)) return NULL;
  if (!PyType_IsSubtype(cls, request_type)) return type_error("cls", "a charter.Request class", (PyObject*)cls);
  if (!PyUnicode_Check(text)) return type_error("request", "str", text);
  size_t n = 0;
  const char* t = utf8(text, &n);
  if (t == NULL) return NULL;
  charter_request* request = NULL;
  charter_error* error = NULL;
  if (charter_request_from_json(t, n, &request, &error) != CHARTER_OK) return raise_error("RequestError", error, NULL);
  return wrap_request(cls, request, Py_None);
}

/* _request_parts(request) -> ((type, id) x3, context as Cedar text) */
static PyObject* m_request_parts(PyObject* module, PyObject* arg) {
  (void)module;
  if (!PyObject_TypeCheck(arg, request_type)) return type_error("request", "charter.Request", arg);
  const charter_request* r = ((RequestObject*)arg)->request;
  charter_uid u[3];
  for (int i = 0; i < 3; ++i) charter_request_uid(r, i, &u[i]);
  char* cedar = NULL;
  size_t n = 0;
  charter_error* error = NULL;
  if (charter_request_context_cedar(r, &cedar, &n, &error) != CHARTER_OK) return raise_error("RequestError", error, NULL);
  PyObject* out = Py_BuildValue("((NN)(NN)(NN)N)", str_n(u[0].type, u[0].type_length), str_n(u[0].id, u[0].id_length),
                                str_n(u[1].type, u[1].type_length), str_n(u[1].id, u[1].id_length),
                                str_n(u[2].type, u[2].type_length), str_n(u[2].id, u[2].id_length), str_n(cedar, n));
  charter_free(cedar);
  return out;
}

static PyType_Slot request_slots[] = {
    {Py_tp_dealloc, (void*)request_dealloc},
    {Py_tp_doc, "A request read by the C API (charter_request)."},
    {0, NULL},
};

/* ---- engines -------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  charter_engine* engine;
  PyObject* schema;   /* charter.Schema or None: requests are read with it */
  PyObject* names;    /* tuple of the policy ids, in order */
  const char* fingerprint; /* the bundle's schema's, or "" (lives with the engine) */
  size_t fingerprint_length;
  int from_bundle;
  int pooled;
  charter_eval_context* pool[POOL_SIZE]; /* guarded by the GIL */
} EngineObject;

static PyTypeObject* engine_type = NULL;

static void engine_dealloc(PyObject* self) {
  EngineObject* e = (EngineObject*)self;
  for (int i = 0; i < e->pooled; ++i) charter_eval_context_free(e->pool[i]);
  charter_engine_free(e->engine);
  Py_XDECREF(e->schema);
  Py_XDECREF(e->names);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyObject* wrap_engine(PyTypeObject* cls, charter_engine* engine, PyObject* schema, int from_bundle) {
  EngineObject* out = (EngineObject*)cls->tp_alloc(cls, 0);
  if (out == NULL) {
    charter_engine_free(engine);
    return NULL;
  }
  out->engine = engine;
  Py_INCREF(schema);
  out->schema = schema;
  out->from_bundle = from_bundle;
  out->pooled = 0;
  out->fingerprint = charter_engine_schema_fingerprint(engine, &out->fingerprint_length);
  size_t count = charter_engine_policy_count(engine);
  out->names = PyTuple_New((Py_ssize_t)count);
  for (size_t i = 0; out->names != NULL && i < count; ++i) {
    size_t n = 0;
    const char* id = charter_engine_policy_id(engine, i, &n);
    PyObject* name = str_n(id, n);
    if (name == NULL) {
      Py_DECREF(out);
      return NULL;
    }
    PyUnicode_InternInPlace(&name);
    PyTuple_SET_ITEM(out->names, (Py_ssize_t)i, name);
  }
  if (out->names == NULL) {
    Py_DECREF(out);
    return NULL;
  }
  return (PyObject*)out;
}

static charter_eval_context* take_context(EngineObject* e) {
  if (e->pooled > 0) return e->pool[--e->pooled];
  charter_eval_context* context = NULL;
  charter_error* error = NULL;
  if (charter_eval_context_new(&context, &error) != CHARTER_OK) {
    charter_error_free(error);
    PyErr_NoMemory();
    return NULL;
  }
  return context;
}

static void give_context(EngineObject* e, charter_eval_context* context) {
  if (e->pooled < POOL_SIZE) {
    e->pool[e->pooled++] = context;
  } else {
    charter_eval_context_free(context);
  }
}

/* Policy `id`'s name, a new reference (the engine's interned str). */
static PyObject* policy_name(EngineObject* e, const char* id, size_t n) {
  size_t i = charter_engine_policy_index(e->engine, id, n);
  if (i < (size_t)PyTuple_GET_SIZE(e->names)) {
    PyObject* name = PyTuple_GET_ITEM(e->names, (Py_ssize_t)i);
    Py_INCREF(name);
    return name;
  }
  return str_n(id, n);
}

/* A typed engine decides as Cedar does only for inputs read with its schema. */
static int same_schema(EngineObject* e, const char* fingerprint, size_t n) {
  return e->fingerprint_length == 0 ||
         (n == e->fingerprint_length && memcmp(fingerprint, e->fingerprint, n) == 0);
}

static int schema_mismatch(EngineObject* e, const char* kind, const char* what, size_t n, const char* how) {
  raise_fmt(kind, "%s: the engine was compiled with a schema (%s); %s (%s)", what, e->fingerprint,
            n == 0 ? "read them with it" : "they were read with another one", how);
  return -1;
}

/* The store of `entities` (None: the engine's empty one, NULL here). */
static int store_of(EngineObject* e, PyObject* entities, const charter_entities** out) {
  *out = NULL;
  if (e->names == NULL) {
    PyErr_SetString(PyExc_TypeError, "an Engine is made by charter.compile() or charter.load_bundle()");
    return -1;
  }
  if (entities == NULL || entities == Py_None) return 0;
  if (!PyObject_TypeCheck(entities, entities_type)) {
    type_error("entities", "charter.Entities or None", entities);
    return -1;
  }
  const charter_entities* store = ((EntitiesObject*)entities)->entities;
  size_t n = 0;
  const char* fingerprint = charter_entities_schema_fingerprint(store, &n);
  if (!same_schema(e, fingerprint, n)) {
    return schema_mismatch(e, "EntitiesError", "entities", n, "charter.Entities.from_json(text, schema=...)");
  }
  *out = store;
  return 0;
}

/* The last decision of `context`, as a Decision. */
static PyObject* decision_of(EngineObject* e, const charter_eval_context* context) {
  size_t reasons = charter_eval_context_reason_count(context);
  size_t errors = charter_eval_context_error_count(context);
  PyObject* why = PyTuple_New((Py_ssize_t)reasons);
  PyObject* failed = PyTuple_New((Py_ssize_t)errors);
  if (why == NULL || failed == NULL) goto fail;
  for (size_t i = 0; i < reasons; ++i) {
    size_t n = 0;
    const char* id = charter_eval_context_reason(context, i, &n);
    PyObject* name = policy_name(e, id, n);
    if (name == NULL) goto fail;
    PyTuple_SET_ITEM(why, (Py_ssize_t)i, name);
  }
  for (size_t i = 0; i < errors; ++i) {
    size_t pn = 0, mn = 0;
    const char* policy = charter_eval_context_error_policy(context, i, &pn);
    const char* message = charter_eval_context_error_message(context, i, &mn);
    PyObject* pair = Py_BuildValue("(NN)", policy_name(e, policy, pn), str_n(message, mn));
    if (pair == NULL) goto fail;
    PyTuple_SET_ITEM(failed, (Py_ssize_t)i, pair);
  }
  return new_decision(charter_eval_context_allowed(context), why, failed);
fail:
  Py_XDECREF(why);
  Py_XDECREF(failed);
  return NULL;
}

/* Decides with a context from the engine's pool, the GIL released. */
static PyObject* decide(EngineObject* e, const charter_request* request, const charter_entities* store) {
  charter_eval_context* context = take_context(e);
  if (context == NULL) return NULL;
  charter_error* error = NULL;
  charter_status status;
  const charter_engine* engine = e->engine;
  Py_BEGIN_ALLOW_THREADS
  status = charter_authorize(engine, store, request, context, &error);
  Py_END_ALLOW_THREADS
  PyObject* out = status == CHARTER_OK ? decision_of(e, context) : raise_error("RequestError", error, NULL);
  give_context(e, context);
  return out;
}

/* Keyword arguments of the per-decision methods, read by position or name. */
static int read_args(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, const char* const* names,
                     int required, int total, PyObject** out, const char* method) {
  for (int i = 0; i < total; ++i) out[i] = NULL;
  if (nargs > total) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", method, total, nargs);
    return -1;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) out[i] = args[i];
  Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    int found = -1;
    for (int i = 0; i < total && found < 0; ++i) {
      if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0) found = i;
    }
    if (found < 0) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", method, key);
      return -1;
    }
    if (out[found] != NULL) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", method, names[found]);
      return -1;
    }
    out[found] = args[nargs + k];
  }
  for (int i = 0; i < required; ++i) {
    if (out[i] == NULL) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", method, names[i]);
      return -1;
    }
  }
  return 0;
}

static PyObject* engine_authorize(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const names[] = {"principal", "action", "resource", "context", "entities"};
  PyObject* a[5];
  if (read_args(args, nargs, kwnames, names, 3, 5, a, "authorize") != 0) return NULL;
  EngineObject* e = (EngineObject*)self;
  const charter_entities* store = NULL;
  if (store_of(e, a[4], &store) != 0) return NULL;
  charter_request* request = make_request(a[0], a[1], a[2], a[3], schema_of(e->schema), -1);
  if (request == NULL) return NULL;
  PyObject* out = decide(e, request, store);
  charter_request_free(request);
  return out;
}

static int prepared_request(EngineObject* e, PyObject* r, const char* what) {
  PyObject* schema = ((RequestObject*)r)->schema;
  if (schema == e->schema || e->fingerprint_length == 0) return 0; /* prepared by this engine, or untyped */
  size_t n = 0;
  const char* fingerprint = fingerprint_of(schema, &n);
  if (same_schema(e, fingerprint, n)) return 0;
  return schema_mismatch(e, "RequestError", what, n, "engine.prepare(...)");
}

static PyObject* engine_authorize_request(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                          PyObject* kwnames) {
  static const char* const names[] = {"request", "entities"};
  PyObject* a[2];
  if (read_args(args, nargs, kwnames, names, 1, 2, a, "authorize_request") != 0) return NULL;
  EngineObject* e = (EngineObject*)self;
  if (!PyObject_TypeCheck(a[0], request_type)) return type_error("request", "charter.Request", a[0]);
  const charter_entities* store = NULL;
  if (store_of(e, a[1], &store) != 0) return NULL;
  if (prepared_request(e, a[0], "request") != 0) return NULL;
  return decide(e, ((RequestObject*)a[0])->request, store);
}

static PyObject* engine_prepare(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const names[] = {"principal", "action", "resource", "context"};
  PyObject* a[4];
  if (read_args(args, nargs, kwnames, names, 3, 4, a, "prepare") != 0) return NULL;
  EngineObject* e = (EngineObject*)self;
  const charter_entities* unused = NULL;
  if (store_of(e, NULL, &unused) != 0) return NULL;
  charter_request* request = make_request(a[0], a[1], a[2], a[3], schema_of(e->schema), -1);
  if (request == NULL) return NULL;
  /* A prepared request is of the package's Request class (registered). */
  PyTypeObject* cls = request_class != NULL ? (PyTypeObject*)request_class : request_type;
  return wrap_request(cls, request, e->schema);
}

/* One request of a batch: a charter.Request, a dict with "principal",
 * "action", "resource" and optionally "context" (and "description",
 * ignored), or a tuple (principal, action, resource[, context]). Sets
 * *owned when the request was made here (and is to be freed). */
static const charter_request* batch_item(EngineObject* e, PyObject* o, Py_ssize_t index, int* owned) {
  *owned = 1;
  if (PyDict_Check(o)) {
    static const char* const keys[4] = {"principal", "action", "resource", "context"};
    PyObject* parts[4] = {NULL, NULL, NULL, NULL};
    /* Looked up by the interned keys (their hashes are kept); the keys are
     * walked only when there is one more than these and "description". */
    Py_ssize_t found = 0;
    for (int i = 0; i < 4; ++i) {
      parts[i] = PyDict_GetItemWithError(o, request_keys[i]);
      if (parts[i] != NULL) {
        ++found;
      } else if (PyErr_Occurred()) {
        return NULL;
      }
    }
    PyObject* description = PyDict_GetItemWithError(o, request_keys[4]);
    if (description == NULL && PyErr_Occurred()) return NULL;
    if (description != NULL) ++found;
    if (PyDict_Size(o) != found) {
      Py_ssize_t pos = 0;
      PyObject *key = NULL, *value = NULL;
      while (PyDict_Next(o, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
          PyErr_Format(PyExc_TypeError, "requests[%zd] (a key): expected str, got %s", index, Py_TYPE(key)->tp_name);
          return NULL;
        }
        int known = 0;
        for (int i = 0; i < 5 && !known; ++i) known = PyUnicode_Compare(key, request_keys[i]) == 0;
        if (!known) {
          raise_fmt("RequestError", "requests[%zd]: unknown key \"%U\"", index, key);
          return NULL;
        }
      }
    }
    for (int i = 0; i < 3; ++i) {
      if (parts[i] == NULL) {
        raise_fmt("RequestError", "requests[%zd]: missing \"%s\"", index, keys[i]);
        return NULL;
      }
    }
    return make_request(parts[0], parts[1], parts[2], parts[3], schema_of(e->schema), index);
  }
  if (PyTuple_Check(o) || PyList_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (n != 3 && n != 4) {
      raise_fmt("RequestError", "requests[%zd]: a request tuple is (principal, action, resource[, context]), not %zd items",
                index, n);
      return NULL;
    }
    PyObject** parts = PySequence_Fast_ITEMS(o);
    return make_request(parts[0], parts[1], parts[2], n == 4 ? parts[3] : NULL, schema_of(e->schema), index);
  }
  if (PyObject_TypeCheck(o, request_type)) {
    *owned = 0;
    char what[40];
    snprintf(what, sizeof(what), "requests[%zd]", index);
    if (prepared_request(e, o, what) != 0) return NULL;
    return ((RequestObject*)o)->request;
  }
  PyErr_Format(PyExc_TypeError,
               "requests[%zd]: expected a charter.Request, a dict or a tuple (principal, action, resource[, "
               "context]), got %s",
               index, Py_TYPE(o)->tp_name);
  return NULL;
}

/* The answers of a chunk, kept while the GIL is released: each decision's
 * reasons as policy indices and its errors as (index, message) with the
 * messages' bytes in one buffer. */
typedef struct {
  int allowed;
  size_t reasons_end;
  size_t errors_end;
} Answer;

typedef struct {
  size_t policy;
  size_t offset;
  size_t length;
} ErrorAnswer;

typedef struct {
  void* data;
  size_t size;
  size_t capacity;
} Vec;

/* Appends `count` items of `item_size` bytes (PyMem_Raw: callable without
 * the GIL). */
static int vec_append(Vec* v, const void* items, size_t count, size_t item_size) {
  if (v->size + count > v->capacity) {
    size_t capacity = v->capacity == 0 ? 64 : v->capacity * 2;
    while (capacity < v->size + count) capacity *= 2;
    void* data = PyMem_RawRealloc(v->data, capacity * item_size);
    if (data == NULL) return -1;
    v->data = data;
    v->capacity = capacity;
  }
  if (count > 0) memcpy((char*)v->data + v->size * item_size, items, count * item_size);
  v->size += count;
  return 0;
}

static int vec_push(Vec* v, const void* item, size_t item_size) { return vec_append(v, item, 1, item_size); }

/* Decides a chunk of requests with the GIL released; appends Decisions to
 * `out`. */
static int decide_chunk(EngineObject* e, const charter_entities* store, const charter_request** requests, size_t n,
                        PyObject* out) {
  charter_eval_context* context = take_context(e);
  if (context == NULL) return -1;
  Vec answers = {NULL, 0, 0}, reasons = {NULL, 0, 0}, errors = {NULL, 0, 0}, text = {NULL, 0, 0};
  int failed = 0;
  charter_error* error = NULL;
  const charter_engine* engine = e->engine;
  Py_BEGIN_ALLOW_THREADS
  for (size_t i = 0; i < n && !failed; ++i) {
    if (charter_authorize(engine, store, requests[i], context, &error) != CHARTER_OK) {
      failed = 1;
      break;
    }
    size_t count = charter_eval_context_reason_count(context);
    for (size_t k = 0; k < count && !failed; ++k) {
      size_t len = 0;
      const char* id = charter_eval_context_reason(context, k, &len);
      size_t index = charter_engine_policy_index(engine, id, len);
      failed = vec_push(&reasons, &index, sizeof(index)) != 0;
    }
    count = charter_eval_context_error_count(context);
    for (size_t k = 0; k < count && !failed; ++k) {
      size_t pl = 0, ml = 0;
      const char* policy = charter_eval_context_error_policy(context, k, &pl);
      const char* message = charter_eval_context_error_message(context, k, &ml);
      ErrorAnswer a = {charter_engine_policy_index(engine, policy, pl), text.size, ml};
      failed = vec_push(&errors, &a, sizeof(a)) != 0 || vec_append(&text, message, ml, 1) != 0;
    }
    Answer a = {charter_eval_context_allowed(context), reasons.size, errors.size};
    if (!failed) failed = vec_push(&answers, &a, sizeof(a)) != 0;
  }
  Py_END_ALLOW_THREADS
  give_context(e, context);
  if (failed) {
    if (error != NULL) {
      raise_error("RequestError", error, NULL);
    } else {
      PyErr_NoMemory();
    }
  }
  size_t r = 0, x = 0;
  for (size_t i = 0; !failed && i < answers.size; ++i) {
    const Answer* a = &((const Answer*)answers.data)[i];
    PyObject* why = PyTuple_New((Py_ssize_t)(a->reasons_end - r));
    PyObject* bad = PyTuple_New((Py_ssize_t)(a->errors_end - x));
    for (Py_ssize_t k = 0; why != NULL && r < a->reasons_end; ++r, ++k) {
      size_t index = ((const size_t*)reasons.data)[r];
      PyObject* name = index < (size_t)PyTuple_GET_SIZE(e->names) ? PyTuple_GET_ITEM(e->names, (Py_ssize_t)index)
                                                                   : Py_None;
      Py_INCREF(name);
      PyTuple_SET_ITEM(why, k, name);
    }
    for (Py_ssize_t k = 0; bad != NULL && x < a->errors_end; ++x, ++k) {
      const ErrorAnswer* ea = &((const ErrorAnswer*)errors.data)[x];
      PyObject* name = ea->policy < (size_t)PyTuple_GET_SIZE(e->names)
                           ? PyTuple_GET_ITEM(e->names, (Py_ssize_t)ea->policy)
                           : Py_None;
      Py_INCREF(name);
      PyObject* pair = Py_BuildValue("(NN)", name, str_n((const char*)text.data + ea->offset, ea->length));
      if (pair == NULL) {
        Py_CLEAR(bad);
        break;
      }
      PyTuple_SET_ITEM(bad, k, pair);
    }
    if (why == NULL || bad == NULL) {
      Py_XDECREF(why);
      Py_XDECREF(bad);
      failed = 1;
      break;
    }
    PyObject* decision = new_decision(a->allowed, why, bad);
    if (decision == NULL || PyList_Append(out, decision) != 0) failed = 1;
    Py_XDECREF(decision);
  }
  PyMem_RawFree(answers.data);
  PyMem_RawFree(reasons.data);
  PyMem_RawFree(errors.data);
  PyMem_RawFree(text.data);
  return failed ? -1 : 0;
}

static PyObject* engine_authorize_batch(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                        PyObject* kwnames) {
  static const char* const names[] = {"requests", "entities"};
  PyObject* a[2];
  if (read_args(args, nargs, kwnames, names, 1, 2, a, "authorize_batch") != 0) return NULL;
  EngineObject* e = (EngineObject*)self;
  const charter_entities* store = NULL;
  if (store_of(e, a[1], &store) != 0) return NULL;
  PyObject* requests = a[0];
  if (PyUnicode_Check(requests) || PyDict_Check(requests)) return type_error("requests", "a list of requests", requests);
  PyObject* it = PyObject_GetIter(requests);
  if (it == NULL) {
    PyErr_Clear();
    return type_error("requests", "a list of requests", requests);
  }
  PyObject* out = PyList_New(0);
  const charter_request* chunk[CHUNK];
  int owned[CHUNK];
  PyObject* held[CHUNK]; /* the items, kept alive while their requests are used */
  size_t n = 0;
  Py_ssize_t index = 0;
  PyObject* item = NULL;
  int failed = out == NULL;
  while (!failed && (item = PyIter_Next(it)) != NULL) {
    const charter_request* r = batch_item(e, item, index++, &owned[n]);
    if (r == NULL) {
      Py_DECREF(item);
      failed = 1;
      break;
    }
    chunk[n] = r;
    held[n] = item;
    ++n;
    if (n == CHUNK) {
      failed = decide_chunk(e, store, chunk, n, out) != 0;
      for (size_t i = 0; i < n; ++i) {
        if (owned[i]) charter_request_free((charter_request*)chunk[i]);
        Py_DECREF(held[i]);
      }
      n = 0;
    }
  }
  if (!failed && PyErr_Occurred()) failed = 1;
  if (!failed && n > 0) failed = decide_chunk(e, store, chunk, n, out) != 0;
  for (size_t i = 0; i < n; ++i) {
    if (owned[i]) charter_request_free((charter_request*)chunk[i]);
    Py_DECREF(held[i]);
  }
  Py_DECREF(it);
  if (failed) {
    Py_XDECREF(out);
    return NULL;
  }
  return out;
}

/* _engine_info(engine) -> (policy_ids tuple, warnings list of tuples, from_bundle, fingerprint, schema) */
static PyObject* m_engine_info(PyObject* module, PyObject* arg) {
  (void)module;
  if (!PyObject_TypeCheck(arg, engine_type)) return type_error("engine", "charter.Engine", arg);
  EngineObject* e = (EngineObject*)arg;
  size_t count = charter_engine_warning_count(e->engine);
  PyObject* warnings = PyList_New((Py_ssize_t)count);
  for (size_t i = 0; warnings != NULL && i < count; ++i) {
    charter_diagnostic d;
    charter_engine_warning(e->engine, i, &d);
    PyObject* item = diagnostic_tuple(&d);
    if (item == NULL) {
      Py_CLEAR(warnings);
      break;
    }
    PyList_SET_ITEM(warnings, (Py_ssize_t)i, item);
  }
  if (warnings == NULL) return NULL;
  return Py_BuildValue("(ONiNO)", e->names, warnings, e->from_bundle, str_n(e->fingerprint, e->fingerprint_length),
                       e->schema);
}

/* The options of compile() and build(). */
typedef struct {
  charter_compile_options options;
  const char* text;
  size_t text_length;
} CompileArgs;

static int compile_args(PyObject* policies, PyObject* schema, PyObject* links, PyObject* source, CompileArgs* out) {
  memset(out, 0, sizeof(*out));
  if (!PyUnicode_Check(policies)) {
    type_error("policies", "str", policies);
    return -1;
  }
  if (schema != Py_None && !PyObject_TypeCheck(schema, schema_type)) {
    type_error("schema", "a charter.Schema or schema text (str)", schema);
    return -1;
  }
  if (links != Py_None && !PyUnicode_Check(links)) {
    type_error("links", "str", links);
    return -1;
  }
  if (!PyUnicode_Check(source)) {
    type_error("source_name", "str", source);
    return -1;
  }
  out->text = utf8(policies, &out->text_length);
  if (out->text == NULL) return -1;
  out->options.schema = schema_of(schema);
  if (links != Py_None) {
    out->options.links_json = utf8(links, &out->options.links_json_length);
    if (out->options.links_json == NULL) return -1;
  }
  out->options.source_name = utf8(source, &out->options.source_name_length);
  return out->options.source_name == NULL ? -1 : 0;
}

/* _compile(cls, policies, schema, links, source_name) -> cls */
static PyObject* m_compile(PyObject* module, PyObject* args) {
  (void)module;
  PyTypeObject* cls = NULL;
  PyObject *policies = NULL, *schema = NULL, *links = NULL, *source = NULL;
  if (!PyArg_ParseTuple(args, "O!OOOO", &PyType_Type, &cls, &policies, &schema, &links, &source)) return NULL;
  if (!PyType_IsSubtype(cls, engine_type)) return type_error("cls", "a charter.Engine class", (PyObject*)cls);
  CompileArgs c;
  if (compile_args(policies, schema, links, source, &c) != 0) return NULL;
  charter_engine* engine = NULL;
  charter_error* error = NULL;
  charter_status status;
  Py_BEGIN_ALLOW_THREADS
  status = charter_engine_compile_with(c.text, c.text_length, &c.options, &engine, &error);
  Py_END_ALLOW_THREADS
  if (status != CHARTER_OK) return raise_error("PolicyError", error, NULL);
  return wrap_engine(cls, engine, schema, 0);
}

/* _build(policies, schema, links, source_name) -> bytes */
static PyObject* m_build(PyObject* module, PyObject* args) {
  (void)module;
  PyObject *policies = NULL, *schema = NULL, *links = NULL, *source = NULL;
  if (!PyArg_ParseTuple(args, "OOOO", &policies, &schema, &links, &source)) return NULL;
  CompileArgs c;
  if (compile_args(policies, schema, links, source, &c) != 0) return NULL;
  void* bytes = NULL;
  size_t length = 0;
  charter_error* error = NULL;
  charter_status status;
  Py_BEGIN_ALLOW_THREADS
  status = charter_compile_bundle_with(c.text, c.text_length, &c.options, &bytes, &length, &error);
  Py_END_ALLOW_THREADS
  if (status != CHARTER_OK) return raise_error("PolicyError", error, NULL);
  PyObject* out = PyBytes_FromStringAndSize(bytes, (Py_ssize_t)length);
  charter_free(bytes);
  return out;
}

/* _load_bundle(cls, bytes_or_path_bytes, is_path, schema) -> cls. A fault
 * raises BundleError with Charter's message. */
static PyObject* m_load_bundle(PyObject* module, PyObject* args) {
  (void)module;
  PyTypeObject* cls = NULL;
  Py_buffer data;
  int is_path = 0;
  PyObject* schema = NULL;
  if (!PyArg_ParseTuple(args, "O!y*pO", &PyType_Type, &cls, &data, &is_path, &schema)) return NULL;
  if (!PyType_IsSubtype(cls, engine_type) || (schema != Py_None && !PyObject_TypeCheck(schema, schema_type))) {
    PyBuffer_Release(&data);
    return type_error("schema", "charter.Schema", schema);
  }
  charter_engine* engine = NULL;
  charter_error* error = NULL;
  charter_status status;
  const charter_schema* with = schema_of(schema);
  Py_BEGIN_ALLOW_THREADS
  status = is_path ? charter_engine_load_bundle_with(data.buf, (size_t)data.len, with, &engine, &error)
                   : charter_engine_from_bundle_with(data.buf, (size_t)data.len, with, &engine, &error);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&data);
  if (status != CHARTER_OK) return raise_error("BundleError", error, NULL);
  return wrap_engine(cls, engine, schema, 1);
}

/* _bundle_fingerprint(bytes_or_path_bytes, is_path) -> str: the schema's
 * fingerprint a bundle was compiled with ("" without one). */
static PyObject* m_bundle_fingerprint(PyObject* module, PyObject* args) {
  (void)module;
  Py_buffer data;
  int is_path = 0;
  if (!PyArg_ParseTuple(args, "y*p", &data, &is_path)) return NULL;
  charter_engine* engine = NULL;
  charter_error* error = NULL;
  charter_status status;
  Py_BEGIN_ALLOW_THREADS
  status = is_path ? charter_engine_load_bundle(data.buf, (size_t)data.len, &engine, &error)
                   : charter_engine_from_bundle(data.buf, (size_t)data.len, &engine, &error);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&data);
  if (status != CHARTER_OK) return raise_error("BundleError", error, NULL);
  size_t n = 0;
  const char* fingerprint = charter_engine_schema_fingerprint(engine, &n);
  PyObject* out = str_n(fingerprint, n);
  charter_engine_free(engine);
  return out;
}

/* ---- queries -------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD
  charter_query* query;
} QueryObject;

static PyTypeObject* query_type = NULL;

static void query_dealloc(PyObject* self) {
  charter_query_free(((QueryObject*)self)->query);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyType_Slot query_slots[] = {
    {Py_tp_dealloc, (void*)query_dealloc},
    {Py_tp_doc, "A query read by the C API (charter_query)."},
    {0, NULL},
};

/* _query(engine, resource_unknown, known, action, type, context) -> query */
static PyObject* m_query(PyObject* module, PyObject* args) {
  (void)module;
  PyObject *engine = NULL, *known = NULL, *action = NULL, *type = NULL, *context = NULL;
  int resource_unknown = 0;
  if (!PyArg_ParseTuple(args, "O!pOOOO", engine_type, &engine, &resource_unknown, &known, &action, &type, &context)) {
    return NULL;
  }
  Ref k, a;
  Where w;
  where_init(&w, -1, resource_unknown ? "principal" : "resource");
  if (to_ref(known, &w, &k) != 0) {
    ref_free(&k);
    return NULL;
  }
  where_init(&w, -1, "action");
  if (to_ref(action, &w, &a) != 0) {
    ref_free(&k);
    ref_free(&a);
    return NULL;
  }
  PyObject* out = NULL;
  Buffer json;
  buffer_init(&json);
  if (!PyUnicode_Check(type)) {
    type_error(resource_unknown ? "resource_type" : "principal_type", "str", type);
    goto done;
  }
  size_t tn = 0;
  const char* t = utf8(type, &tn);
  if (t == NULL) goto done;
  where_init(&w, -1, "context");
  const char* text = NULL;
  size_t n = 0;
  int from_dict = 0;
  if (context_text(context, &w, &json, &text, &n, &from_dict) != 0) goto done;
  charter_query* query = NULL;
  charter_error* error = NULL;
  if (charter_query_new(((EngineObject*)engine)->engine,
                        resource_unknown ? CHARTER_UNKNOWN_RESOURCE : CHARTER_UNKNOWN_PRINCIPAL, &k.uid, &a.uid, t, tn,
                        text, n, "context", 7, &query, &error) != CHARTER_OK) {
    PyObject* source = PyUnicode_FromString("context");
    if (source != NULL) context_error(error, from_dict, source);
    Py_XDECREF(source);
    goto done;
  }
  QueryObject* q = PyObject_New(QueryObject, query_type);
  if (q == NULL) {
    charter_query_free(query);
    goto done;
  }
  q->query = query;
  out = (PyObject*)q;
done:
  ref_free(&k);
  ref_free(&a);
  buffer_free(&json);
  return out;
}

static PyObject* match_tuple(const charter_match* m) {
  size_t tn = 0, in = 0;
  const char* t = charter_match_type(m, &tn);
  const char* i = charter_match_id(m, &in);
  size_t rc = charter_match_reason_count(m), ec = charter_match_error_count(m);
  PyObject* reasons = PyList_New((Py_ssize_t)rc);
  PyObject* errors = PyList_New((Py_ssize_t)ec);
  if (reasons == NULL || errors == NULL) goto fail;
  for (size_t k = 0; k < rc; ++k) {
    size_t n = 0;
    const char* r = charter_match_reason(m, k, &n);
    PyObject* s = str_n(r, n);
    if (s == NULL) goto fail;
    PyList_SET_ITEM(reasons, (Py_ssize_t)k, s);
  }
  for (size_t k = 0; k < ec; ++k) {
    size_t pn = 0, mn = 0;
    const char* p = charter_match_error_policy(m, k, &pn);
    const char* msg = charter_match_error_message(m, k, &mn);
    PyObject* pair = Py_BuildValue("(NN)", str_n(p, pn), str_n(msg, mn));
    if (pair == NULL) goto fail;
    PyList_SET_ITEM(errors, (Py_ssize_t)k, pair);
  }
  return Py_BuildValue("(NNNN)", str_n(t, tn), str_n(i, in), reasons, errors);
fail:
  Py_XDECREF(reasons);
  Py_XDECREF(errors);
  return NULL;
}

/* _list_page(engine, entities, query, start, limit) -> (list of (type, id,
 * reasons, errors), next cursor) */
static PyObject* m_list_page(PyObject* module, PyObject* args) {
  (void)module;
  PyObject *engine = NULL, *entities = NULL, *query = NULL;
  Py_ssize_t start = 0, limit = 0;
  if (!PyArg_ParseTuple(args, "O!OO!nn", engine_type, &engine, &entities, query_type, &query, &start, &limit)) {
    return NULL;
  }
  EngineObject* e = (EngineObject*)engine;
  const charter_entities* store = NULL;
  if (store_of(e, entities, &store) != 0) return NULL;
  charter_match_page* page = NULL;
  charter_error* error = NULL;
  charter_status status;
  const charter_query* q = ((QueryObject*)query)->query;
  Py_BEGIN_ALLOW_THREADS
  status = charter_list_allowed_page(e->engine, store, q, (size_t)start, (size_t)limit, &page, &error);
  Py_END_ALLOW_THREADS
  if (status != CHARTER_OK) return raise_error("RequestError", error, NULL);
  size_t count = charter_match_page_count(page);
  PyObject* matches = PyList_New((Py_ssize_t)count);
  for (size_t i = 0; matches != NULL && i < count; ++i) {
    PyObject* m = match_tuple(charter_match_page_at(page, i));
    if (m == NULL) {
      Py_CLEAR(matches);
      break;
    }
    PyList_SET_ITEM(matches, (Py_ssize_t)i, m);
  }
  size_t next = charter_match_page_next(page);
  charter_match_page_free(page);
  if (matches == NULL) return NULL;
  return Py_BuildValue("(Nn)", matches, (Py_ssize_t)next);
}

/* Every match of a streamed listing, copied (the GIL released) as
 * records: type and id as bytes, reasons as policy indices, errors as a
 * policy index and a message. */
typedef struct {
  const charter_engine* engine;
  Vec records; /* MatchRecord */
  Vec bytes;   /* char: types, ids and messages */
  Vec indices; /* size_t: reasons, then for each error its policy and its message's offset and length */
  int failed;
} Listing;

typedef struct {
  size_t type_offset, type_length, id_offset, id_length;
  size_t reasons, errors; /* counts; their entries follow in `indices` from `first` */
  size_t first;
} MatchRecord;

static int push_bytes(Vec* v, const char* p, size_t n, size_t* offset) {
  *offset = v->size;
  return vec_append(v, p, n, 1);
}

static int copy_match(const charter_match* m, void* user_data) {
  Listing* l = (Listing*)user_data;
  MatchRecord r;
  size_t n = 0;
  const char* t = charter_match_type(m, &r.type_length);
  const char* i = charter_match_id(m, &r.id_length);
  r.reasons = charter_match_reason_count(m);
  r.errors = charter_match_error_count(m);
  r.first = l->indices.size;
  int failed = push_bytes(&l->bytes, t, r.type_length, &r.type_offset) != 0 ||
               push_bytes(&l->bytes, i, r.id_length, &r.id_offset) != 0;
  for (size_t k = 0; k < r.reasons && !failed; ++k) {
    const char* id = charter_match_reason(m, k, &n);
    size_t index = charter_engine_policy_index(l->engine, id, n);
    failed = vec_push(&l->indices, &index, sizeof(index)) != 0;
  }
  for (size_t k = 0; k < r.errors && !failed; ++k) {
    const char* policy = charter_match_error_policy(m, k, &n);
    size_t entry[3] = {charter_engine_policy_index(l->engine, policy, n), 0, 0};
    const char* message = charter_match_error_message(m, k, &entry[2]);
    failed = push_bytes(&l->bytes, message, entry[2], &entry[1]) != 0 ||
             vec_push(&l->indices, &entry[0], sizeof(size_t)) != 0 ||
             vec_push(&l->indices, &entry[1], sizeof(size_t)) != 0 ||
             vec_push(&l->indices, &entry[2], sizeof(size_t)) != 0;
  }
  if (!failed) failed = vec_push(&l->records, &r, sizeof(r)) != 0;
  l->failed = failed;
  return failed;
}

static PyObject* name_at(EngineObject* e, size_t index) {
  PyObject* name = index < (size_t)PyTuple_GET_SIZE(e->names) ? PyTuple_GET_ITEM(e->names, (Py_ssize_t)index) : Py_None;
  Py_INCREF(name);
  return name;
}

/* _list_all(engine, entities, query) -> list of (type, id, reasons, errors):
 * the whole listing, streamed by charter_list_allowed with the GIL released. */
static PyObject* m_list_all(PyObject* module, PyObject* args) {
  (void)module;
  PyObject *engine = NULL, *entities = NULL, *query = NULL;
  if (!PyArg_ParseTuple(args, "O!OO!", engine_type, &engine, &entities, query_type, &query)) return NULL;
  EngineObject* e = (EngineObject*)engine;
  const charter_entities* store = NULL;
  if (store_of(e, entities, &store) != 0) return NULL;
  charter_eval_context* context = take_context(e);
  if (context == NULL) return NULL;
  Listing l = {e->engine, {NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}, 0};
  charter_error* error = NULL;
  charter_status status;
  const charter_query* q = ((QueryObject*)query)->query;
  Py_BEGIN_ALLOW_THREADS
  status = charter_list_allowed(e->engine, store, q, context, copy_match, &l, &error);
  Py_END_ALLOW_THREADS
  give_context(e, context);
  PyObject* out = NULL;
  if (status != CHARTER_OK) {
    raise_error("RequestError", error, NULL);
    goto done;
  }
  if (l.failed) {
    PyErr_NoMemory();
    goto done;
  }
  out = PyList_New((Py_ssize_t)l.records.size);
  const char* bytes = (const char*)l.bytes.data;
  const size_t* indices = (const size_t*)l.indices.data;
  for (size_t i = 0; out != NULL && i < l.records.size; ++i) {
    const MatchRecord* r = &((const MatchRecord*)l.records.data)[i];
    PyObject* reasons = PyList_New((Py_ssize_t)r->reasons);
    PyObject* errors = PyList_New((Py_ssize_t)r->errors);
    size_t at = r->first;
    for (size_t k = 0; reasons != NULL && k < r->reasons; ++k) {
      PyList_SET_ITEM(reasons, (Py_ssize_t)k, name_at(e, indices[at++]));
    }
    for (size_t k = 0; errors != NULL && k < r->errors; ++k, at += 3) {
      PyObject* pair = Py_BuildValue("(NN)", name_at(e, indices[at]), str_n(bytes + indices[at + 1], indices[at + 2]));
      if (pair == NULL) {
        Py_CLEAR(errors);
        break;
      }
      PyList_SET_ITEM(errors, (Py_ssize_t)k, pair);
    }
    PyObject* item = reasons == NULL || errors == NULL
                         ? NULL
                         : Py_BuildValue("(NNOO)", str_n(bytes + r->type_offset, r->type_length),
                                         str_n(bytes + r->id_offset, r->id_length), reasons, errors);
    Py_XDECREF(reasons);
    Py_XDECREF(errors);
    if (item == NULL) {
      Py_CLEAR(out);
      break;
    }
    PyList_SET_ITEM(out, (Py_ssize_t)i, item);
  }
done:
  PyMem_RawFree(l.records.data);
  PyMem_RawFree(l.bytes.data);
  PyMem_RawFree(l.indices.data);
  return out;
}

/* _residual(engine, entities, query) -> (outcome, condition, condition_json,
 * exact, label_selector or None, json, text) */
static PyObject* m_residual(PyObject* module, PyObject* args) {
  (void)module;
  PyObject *engine = NULL, *entities = NULL, *query = NULL;
  if (!PyArg_ParseTuple(args, "O!OO!", engine_type, &engine, &entities, query_type, &query)) return NULL;
  EngineObject* e = (EngineObject*)engine;
  const charter_entities* store = NULL;
  if (store_of(e, entities, &store) != 0) return NULL;
  charter_residual* r = NULL;
  charter_error* error = NULL;
  charter_status status;
  const charter_query* q = ((QueryObject*)query)->query;
  Py_BEGIN_ALLOW_THREADS
  status = charter_residual_new(e->engine, store, q, &r, &error);
  Py_END_ALLOW_THREADS
  if (status != CHARTER_OK) return raise_error("RequestError", error, NULL);
  static const char* const outcomes[3] = {"allow", "deny", "depends"};
  size_t cn = 0, jn = 0, an = 0, tn = 0, ln = 0;
  const char* condition = charter_residual_condition(r, &cn);
  const char* condition_json = charter_residual_condition_json(r, &jn);
  const char* json = charter_residual_json(r, &an);
  const char* text = charter_residual_text(r, &tn);
  const char* selector = charter_residual_label_selector(r, &ln);
  PyObject* label = selector == NULL ? (Py_INCREF(Py_None), Py_None) : str_n(selector, ln);
  PyObject* out = Py_BuildValue("(sNNONNN)", outcomes[charter_residual_get_outcome(r)], str_n(condition, cn),
                                str_n(condition_json, jn), charter_residual_exact(r) ? Py_True : Py_False, label,
                                str_n(json, an), str_n(text, tn));
  charter_residual_free(r);
  return out;
}

/* ---- entity references, scheduling, version -------------------------------------- */

/* _uid_parse(text) -> (type, id) */
static PyObject* m_uid_parse(PyObject* module, PyObject* text) {
  (void)module;
  if (!PyUnicode_Check(text)) return type_error("text", "str", text);
  size_t n = 0;
  const char* t = utf8(text, &n);
  if (t == NULL) return NULL;
  Buffer b;
  buffer_init(&b);
  if (buffer_reserve(&b, n) != 0) return NULL;
  charter_uid uid;
  charter_error* error = NULL;
  PyObject* out = NULL;
  if (charter_uid_parse(t, n, b.data, b.capacity, &uid, &error) != CHARTER_OK) {
    raise_error("RequestError", error, NULL);
  } else {
    out = Py_BuildValue("(NN)", str_n(uid.type, uid.type_length), str_n(uid.id, uid.id_length));
  }
  buffer_free(&b);
  return out;
}

/* _uid_format(type, id) -> text; a type that is not a name raises RequestError */
static PyObject* m_uid_format(PyObject* module, PyObject* args) {
  (void)module;
  PyObject *type = NULL, *id = NULL;
  if (!PyArg_ParseTuple(args, "OO", &type, &id)) return NULL;
  if (!PyUnicode_Check(type)) return type_error("type", "str", type);
  if (!PyUnicode_Check(id)) return type_error("id", "str", id);
  charter_uid uid;
  uid.type = utf8(type, &uid.type_length);
  if (uid.type == NULL) return NULL;
  uid.id = utf8(id, &uid.id_length);
  if (uid.id == NULL) return NULL;
  char* text = NULL;
  size_t n = 0;
  charter_error* error = NULL;
  if (charter_uid_format(&uid, &text, &n, &error) != CHARTER_OK) return raise_error("RequestError", error, NULL);
  PyObject* out = str_n(text, n);
  charter_free(text);
  return out;
}

/* _schedule(state_json, hyperpod, scenario or None) -> result JSON text */
static PyObject* m_schedule(PyObject* module, PyObject* args) {
  (void)module;
  PyObject *state = NULL, *scenario = NULL;
  int hyperpod = 0;
  if (!PyArg_ParseTuple(args, "UpO", &state, &hyperpod, &scenario)) return NULL;
  if (scenario != Py_None && !PyUnicode_Check(scenario)) return type_error("scenario", "str", scenario);
  size_t n = 0, sn = 0;
  const char* s = utf8(state, &n);
  if (s == NULL) return NULL;
  const char* id = NULL;
  if (scenario != Py_None && (id = utf8(scenario, &sn)) == NULL) return NULL;
  char* result = NULL;
  size_t rn = 0;
  charter_error* error = NULL;
  charter_status status;
  Py_BEGIN_ALLOW_THREADS
  status = charter_schedule_cycle_with(s, n, hyperpod, id, sn, &result, &rn, &error);
  Py_END_ALLOW_THREADS
  if (status != CHARTER_OK) return raise_error("ScheduleError", error, NULL);
  PyObject* out = str_n(result, rn);
  charter_free(result);
  return out;
}

static PyObject* m_version(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  return PyUnicode_FromString(charter_version());
}

static PyObject* m_c_api_version(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  return PyLong_FromLong(charter_c_api_version());
}

/* _register(EntityUid, Request): the package's uid class, which contexts
 * and entity references accept, and its Request class, which prepare()
 * makes. */
static PyObject* m_register(PyObject* module, PyObject* args) {
  (void)module;
  PyObject *uid = NULL, *request = NULL;
  if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &uid, &PyType_Type, &request)) return NULL;
  if (!PyType_IsSubtype((PyTypeObject*)request, request_type)) return type_error("Request", "a RequestBase class", request);
  Py_INCREF(uid);
  Py_XSETREF(entity_uid_type, uid);
  Py_INCREF(request);
  Py_XSETREF(request_class, request);
  Py_RETURN_NONE;
}

/* ---- the module --------------------------------------------------------------------- */

static PyMethodDef engine_methods[] = {
    {"authorize", (PyCFunction)(void (*)(void))engine_authorize, METH_FASTCALL | METH_KEYWORDS,
     "authorize(principal, action, resource, context=None, entities=None) -> Decision\n\n"
     "Decides one request.\n\n"
     "principal, action and resource are entity references: 'Type::\"id\"', {'type': ..., 'id': ...}\n"
     "or a charter.EntityUid. context is a dict of Cedar values (bool, int, str, list or set, dict,\n"
     "{'__entity': ...}, {'__extn': ...}) or its JSON text; entities a charter.Entities (None: none).\n"
     "The GIL is released while the engine decides."},
    {"authorize_request", (PyCFunction)(void (*)(void))engine_authorize_request, METH_FASTCALL | METH_KEYWORDS,
     "authorize_request(request, entities=None) -> Decision\n\n"
     "Decides a request prepared with prepare(): the fastest call for a request decided often."},
    {"authorize_batch", (PyCFunction)(void (*)(void))engine_authorize_batch, METH_FASTCALL | METH_KEYWORDS,
     "authorize_batch(requests, entities=None) -> list[Decision]\n\n"
     "Decides many requests at once, releasing the GIL once for each 64; returns a list of\n"
     "Decision in their order. Each request is a charter.Request, a dict with 'principal',\n"
     "'action', 'resource' and optionally 'context' (an object of a requests.json file), or a\n"
     "tuple (principal, action, resource[, context])."},
    {"prepare", (PyCFunction)(void (*)(void))engine_prepare, METH_FASTCALL | METH_KEYWORDS,
     "prepare(principal, action, resource, context=None) -> Request\n\n"
     "Reads a request once (with the engine's schema, if it has one) for authorize_request()."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot engine_slots[] = {
    {Py_tp_dealloc, (void*)engine_dealloc},
    {Py_tp_methods, engine_methods},
    {Py_tp_doc, "An engine made by the C API (charter_engine): the per-decision calls."},
    {0, NULL},
};

static PyMethodDef module_methods[] = {
    {"_schema_parse", m_schema_parse, METH_VARARGS, NULL},
    {"_schema_info", m_schema_info, METH_O, NULL},
    {"_entities_from_json", m_entities_from_json, METH_VARARGS, NULL},
    {"_entities_extend", m_entities_extend, METH_VARARGS, NULL},
    {"_entities_len", entities_len_obj, METH_O, NULL},
    {"_entities_uids", m_entities_uids, METH_O, NULL},
    {"_entities_contains", m_entities_contains, METH_VARARGS, NULL},
    {"_request_new", m_request_new, METH_VARARGS, NULL},
    {"_request_parts", m_request_parts, METH_O, NULL},
    {"_request_from_json", m_request_from_json, METH_VARARGS, NULL},
    {"_engine_info", m_engine_info, METH_O, NULL},
    {"_compile", m_compile, METH_VARARGS, NULL},
    {"_build", m_build, METH_VARARGS, NULL},
    {"_load_bundle", m_load_bundle, METH_VARARGS, NULL},
    {"_bundle_fingerprint", m_bundle_fingerprint, METH_VARARGS, NULL},
    {"_query", m_query, METH_VARARGS, NULL},
    {"_list_page", m_list_page, METH_VARARGS, NULL},
    {"_list_all", m_list_all, METH_VARARGS, NULL},
    {"_residual", m_residual, METH_VARARGS, NULL},
    {"_uid_parse", m_uid_parse, METH_O, NULL},
    {"_uid_format", m_uid_format, METH_VARARGS, NULL},
    {"_schedule", m_schedule, METH_VARARGS, NULL},
    {"_register", m_register, METH_VARARGS, NULL},
    {"version", m_version, METH_NOARGS, "version() -> str\n\nThe library's version, 'MAJOR.MINOR.PATCH'."},
    {"c_api_version", m_c_api_version, METH_NOARGS,
     "c_api_version() -> int\n\nThe C API's version (CHARTER_C_API_VERSION) of the library loaded."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "charter._charter",
    "Charter's C API for Python. Import the package `charter`, which builds on it.", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

static PyTypeObject* add_type(PyObject* module, const char* name, const char* qualified, int basic_size,
                              PyType_Slot* slots, unsigned int flags) {
  PyType_Spec spec = {qualified, basic_size, 0, flags, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (type == NULL) return NULL;
  Py_INCREF(type);
  if (PyModule_AddObject(module, name, type) != 0) {
    Py_DECREF(type);
    Py_DECREF(type);
    return NULL;
  }
  return (PyTypeObject*)type; /* the module and this file each hold a reference */
}

PyMODINIT_FUNC PyInit__charter(void) {
  PyObject* module = PyModule_Create(&module_def);
  if (module == NULL) return NULL;
  str_type = PyUnicode_InternFromString("type");
  str_id = PyUnicode_InternFromString("id");
  str_allow = PyUnicode_InternFromString("allow");
  str_deny = PyUnicode_InternFromString("deny");
  if (str_type == NULL || str_id == NULL || str_allow == NULL || str_deny == NULL) goto fail;
  static const char* const escape_key_names[KEY_COUNT] = {"__extn", "__entity", "__expr", "fn", "arg", "args"};
  for (int i = 0; i < KEY_COUNT; ++i) {
    escape_keys[i] = PyUnicode_InternFromString(escape_key_names[i]);
    if (escape_keys[i] == NULL) goto fail;
  }
  static const char* const request_key_names[5] = {"principal", "action", "resource", "context", "description"};
  for (int i = 0; i < 5; ++i) {
    request_keys[i] = PyUnicode_InternFromString(request_key_names[i]);
    if (request_keys[i] == NULL) goto fail;
  }
  unsigned int final_flags = Py_TPFLAGS_DEFAULT;
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
  final_flags |= Py_TPFLAGS_DISALLOW_INSTANTIATION;
#endif
  unsigned int base_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  decision_type = add_type(module, "Decision", "charter.Decision", sizeof(DecisionObject), decision_slots, final_flags);
  schema_type = add_type(module, "SchemaBase", "charter._charter.SchemaBase", sizeof(SchemaObject), schema_slots,
                         base_flags);
  entities_type = add_type(module, "EntitiesBase", "charter._charter.EntitiesBase", sizeof(EntitiesObject),
                           entities_slots, base_flags);
  request_type = add_type(module, "RequestBase", "charter._charter.RequestBase", sizeof(RequestObject),
                          request_slots, base_flags);
  engine_type = add_type(module, "EngineBase", "charter._charter.EngineBase", sizeof(EngineObject), engine_slots,
                         base_flags);
  query_type = add_type(module, "Query", "charter._charter.Query", sizeof(QueryObject), query_slots, final_flags);
  if (decision_type == NULL || schema_type == NULL || entities_type == NULL || request_type == NULL ||
      engine_type == NULL || query_type == NULL) {
    goto fail;
  }
  if (PyModule_AddIntConstant(module, "C_API_VERSION", CHARTER_C_API_VERSION) != 0) goto fail;
  return module;
fail:
  Py_DECREF(module);
  return NULL;
}
