/* cudagen stand-in for <GL/gl.h>: only the types cudaGL.h uses, as OpenGL's header defines them. */
#ifndef CUDAGEN_STANDIN_GL_H
#define CUDAGEN_STANDIN_GL_H
typedef unsigned int GLenum;
typedef unsigned int GLuint;
#endif
