/* The least any binding can do per call, as a reference row for bench_python.py (not a test).
 *
 * `gil()` only releases and retakes the GIL and returns None: no argument, no driver call, no
 * result object. `ctx()`, `attr(attrib, dev)` and `query(stream)` are cuCtxGetCurrent,
 * cuDeviceGetAttribute and cuStreamQuery taking and returning plain ints (`(err, value)` or
 * `(err,)`), no typed objects. `launch(...)` takes cuLaunchKernel's eleven arguments with the handles already
 * as ints and kernelParams as a buffer (a numpy uint64 array), releases the GIL around the real
 * driver call and returns `(int,)`. A binding that keeps requirement "the GIL is released around
 * every call" cannot be faster than these. Built by tests/gpu/bundle.sh for CPython 3.12.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>

typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void *, void **, void **);
typedef int (*ctx_fn)(void **);
typedef int (*attr_fn)(int *, int, int);
typedef int (*query_fn)(void *);
typedef int (*get_proc_fn)(const char *, void **, int, uint64_t, int *);
static launch_fn cu_launch;
static ctx_fn cu_ctx;
static attr_fn cu_attr;
static query_fn cu_query;

static PyObject *gil(PyObject *self, PyObject *unused) {
  PyThreadState *state = PyEval_SaveThread();
  PyEval_RestoreThread(state);
  Py_RETURN_NONE;
}

/* Fills *slot with the driver's entry point `name` (through cuGetProcAddress_v2, as bindings do). */
static int resolve(const char *name, void **slot) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  get_proc_fn get_proc = lib ? (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2") : NULL;
  if (!get_proc || get_proc(name, slot, 12000, 0, NULL) != 0 || !*slot) {
    PyErr_Format(PyExc_RuntimeError, "bench_floor: %s not found in libcuda.so.1", name);
    return -1;
  }
  return 0;
}

/* `(err, value)`, taking the new reference `value` (NULL: an error is set). */
static PyObject *pair(int err, PyObject *value) {
  PyObject *code = PyLong_FromLong(err);
  PyObject *result = code && value ? PyTuple_Pack(2, code, value) : NULL;
  Py_XDECREF(code);
  Py_XDECREF(value);
  return result;
}

/* `(err,)`. */
static PyObject *single(int err) {
  PyObject *code = PyLong_FromLong(err);
  if (!code) return NULL;
  PyObject *result = PyTuple_Pack(1, code);
  Py_DECREF(code);
  return result;
}

static PyObject *ctx(PyObject *self, PyObject *unused) {
  if (!cu_ctx && resolve("cuCtxGetCurrent", (void **)&cu_ctx) < 0) return NULL;
  void *out = NULL;
  PyThreadState *state = PyEval_SaveThread();
  int err = cu_ctx(&out);
  PyEval_RestoreThread(state);
  return pair(err, PyLong_FromVoidPtr(out));
}

static PyObject *attr(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "attr() takes 2 arguments");
    return NULL;
  }
  if (!cu_attr && resolve("cuDeviceGetAttribute", (void **)&cu_attr) < 0) return NULL;
  int attrib = (int)PyLong_AsLong(args[0]), dev = (int)PyLong_AsLong(args[1]), out = 0;
  if (PyErr_Occurred()) return NULL;
  PyThreadState *state = PyEval_SaveThread();
  int err = cu_attr(&out, attrib, dev);
  PyEval_RestoreThread(state);
  return pair(err, PyLong_FromLong(out));
}

static PyObject *query(PyObject *self, PyObject *stream) {
  if (!cu_query && resolve("cuStreamQuery", (void **)&cu_query) < 0) return NULL;
  void *handle = PyLong_AsVoidPtr(stream);
  if (PyErr_Occurred()) return NULL;
  PyThreadState *state = PyEval_SaveThread();
  int err = cu_query(handle);
  PyEval_RestoreThread(state);
  return single(err);
}

static PyObject *launch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 11) {
    PyErr_SetString(PyExc_TypeError, "launch() takes 11 arguments");
    return NULL;
  }
  if (!cu_launch && resolve("cuLaunchKernel", (void **)&cu_launch) < 0) return NULL;
  unsigned dims[7];
  for (int i = 0; i < 7; i++) dims[i] = (unsigned)PyLong_AsUnsignedLong(args[1 + i]);
  void *kernel = PyLong_AsVoidPtr(args[0]), *stream = PyLong_AsVoidPtr(args[8]);
  if (PyErr_Occurred()) return NULL;
  Py_buffer params;
  if (PyObject_GetBuffer(args[9], &params, PyBUF_SIMPLE) < 0) return NULL;
  PyThreadState *state = PyEval_SaveThread();
  int err = cu_launch(kernel, dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], dims[6], stream,
                      (void **)params.buf, NULL);
  PyEval_RestoreThread(state);
  PyBuffer_Release(&params);
  return single(err);
}

static PyMethodDef methods[] = {
    {"gil", gil, METH_NOARGS, "Releases and retakes the GIL; returns None."},
    {"ctx", ctx, METH_NOARGS, "cuCtxGetCurrent as (int, int), the least a binding can do."},
    {"attr", (PyCFunction)(void (*)(void))attr, METH_FASTCALL, "cuDeviceGetAttribute on ints, the least a binding can do."},
    {"query", query, METH_O, "cuStreamQuery on an int handle, the least a binding can do."},
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, "cuLaunchKernel, the least a binding can do."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "bench_floor", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_bench_floor(void) { return PyModule_Create(&module); }
