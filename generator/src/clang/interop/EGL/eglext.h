/* cudagen stand-in for <EGL/eglext.h>: only the types cudaEGL.h uses, as Khronos' headers define them. */
#ifndef CUDAGEN_STANDIN_EGLEXT_H
#define CUDAGEN_STANDIN_EGLEXT_H
typedef void *EGLImageKHR;
typedef void *EGLStreamKHR;
typedef void *EGLSyncKHR;
#endif
