/* Stands in for the cudagen C shim installed as libcuda.so.1: it must be skipped. */
#include <stdint.h>
const int cudagen_shim_marker = 1;
int shim_fn(void) { return 7; }
int cuDriverGetVersion(int *v) { *v = 99000; return 0; }
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status) {
    *pfn = (void *)shim_fn; if (status) *status = 0; return 0;
}
