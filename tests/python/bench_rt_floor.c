/* The least a binding of the CUDA runtime can do per call, as reference rows for the runtime
 * bench (tests/gpu/runtime_py.py, tests/python/bench_runtime.py; not a test).
 *
 * `get_device()`, `get_device_count()` and `query(stream)` are cudaGetDevice, cudaGetDeviceCount
 * and cudaStreamQuery taking and returning plain ints (`(err, value)` or `(err,)`) with the GIL
 * released around the call, no typed objects. One source, two builds:
 * - `-DFLOOR_DYNAMIC`: module `bench_rt_floor_dyn`, the entries of a libcudart loaded with dlopen
 *   ($CUDAGEN_BENCH_CUDART, else `libcudart.so.<CUDART_MAJOR>`), as cudagen loads it when
 *   $CUDAGEN_CUDART_PATH names one;
 * - otherwise: module `bench_rt_floor_static`, linked with NVIDIA's libcudart_static.a, as
 *   cuda.bindings.runtime and cudagen's wheels carry cudart inside their extension.
 * The two show what the runtime library costs per call in each form, apart from any binding.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdlib.h>

typedef int (*int_out_fn)(int *);
typedef int (*query_fn)(void *);

#ifdef FLOOR_DYNAMIC
#define MODULE_NAME "bench_rt_floor_dyn"
#define MODULE_INIT PyInit_bench_rt_floor_dyn
#define STR2(x) #x
#define STR(x) STR2(x)
static int_out_fn get_device_fn, get_device_count_fn;
static query_fn query_entry;

/* Resolves the three entries from the libcudart cudagen would load; -1 with an error set. */
static int resolve_all(void) {
  const char *path = getenv("CUDAGEN_BENCH_CUDART");
  void *lib = dlopen(path && *path ? path : "libcudart.so." STR(CUDART_MAJOR), RTLD_NOW);
  if (!lib) {
    PyErr_Format(PyExc_RuntimeError, "bench_rt_floor: %s", dlerror());
    return -1;
  }
  get_device_fn = (int_out_fn)dlsym(lib, "cudaGetDevice");
  get_device_count_fn = (int_out_fn)dlsym(lib, "cudaGetDeviceCount");
  query_entry = (query_fn)dlsym(lib, "cudaStreamQuery");
  if (!get_device_fn || !get_device_count_fn || !query_entry) {
    PyErr_SetString(PyExc_RuntimeError, "bench_rt_floor: an entry is missing from libcudart");
    return -1;
  }
  return 0;
}
#else
#define MODULE_NAME "bench_rt_floor_static"
#define MODULE_INIT PyInit_bench_rt_floor_static
int cudaGetDevice(int *device);
int cudaGetDeviceCount(int *count);
int cudaStreamQuery(void *stream);
static int_out_fn get_device_fn = cudaGetDevice, get_device_count_fn = cudaGetDeviceCount;
static query_fn query_entry = cudaStreamQuery;
static int resolve_all(void) { return 0; }
#endif

/* `(err, value)` of an entry that writes one int. */
static PyObject *int_out(int_out_fn fn) {
  int value = 0;
  PyThreadState *state = PyEval_SaveThread();
  int err = fn(&value);
  PyEval_RestoreThread(state);
  PyObject *code = PyLong_FromLong(err), *out = PyLong_FromLong(value);
  PyObject *result = code && out ? PyTuple_Pack(2, code, out) : NULL;
  Py_XDECREF(code);
  Py_XDECREF(out);
  return result;
}

static PyObject *get_device(PyObject *self, PyObject *unused) { return int_out(get_device_fn); }

static PyObject *get_device_count(PyObject *self, PyObject *unused) { return int_out(get_device_count_fn); }

static PyObject *query(PyObject *self, PyObject *stream) {
  void *handle = PyLong_AsVoidPtr(stream);
  if (PyErr_Occurred()) return NULL;
  PyThreadState *state = PyEval_SaveThread();
  int err = query_entry(handle);
  PyEval_RestoreThread(state);
  PyObject *code = PyLong_FromLong(err);
  if (!code) return NULL;
  PyObject *result = PyTuple_Pack(1, code);
  Py_DECREF(code);
  return result;
}

static PyMethodDef methods[] = {
    {"get_device", get_device, METH_NOARGS, "cudaGetDevice as (int, int)."},
    {"get_device_count", get_device_count, METH_NOARGS, "cudaGetDeviceCount as (int, int)."},
    {"query", query, METH_O, "cudaStreamQuery on an int handle, as (int,)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, MODULE_NAME, NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC MODULE_INIT(void) { return resolve_all() < 0 ? NULL : PyModule_Create(&module); }
