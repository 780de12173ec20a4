/* cudagen stand-in for <EGL/egl.h>: only the types cudaEGL.h uses, as Khronos' headers define them. */
#ifndef CUDAGEN_STANDIN_EGL_H
#define CUDAGEN_STANDIN_EGL_H
#include <stdint.h>
typedef int32_t EGLint;
#endif
