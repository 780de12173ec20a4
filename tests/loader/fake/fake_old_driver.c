/* A pre-11.3 fake libcuda without cuGetProcAddress: entries resolve by dlsym(symbol). */
int cuFake_v2(int x) { return x + 1; }
int cuDriverGetVersion(int *v) { *v = 11020; return 0; }
