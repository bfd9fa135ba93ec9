/*
 * pyconfig.h for 64-bit Windows and mingw-w64, written for one purpose:
 * csrc/check/win_run.sh compiles module.c and records.c against CPython's
 * own headers with it (-fsyntax-only), where no Windows Python exists.  It
 * replaces the Linux pyconfig.h in a copy of the include directory.
 */
#ifndef Py_CONFIG_H
#define Py_CONFIG_H
#include <io.h>
#include <stdio.h>
#include <basetsd.h>
#define MS_WIN32
#define MS_WIN64
#define MS_WINDOWS
#define NT_THREADS
#define WITH_THREAD
#define COMPILER "[gcc]"
#define PLATFORM "win32"
#define Py_ENABLE_SHARED 1
#define MS_COREDLL
#define HAVE_DECLSPEC_DLL
#define HAVE_SSIZE_T 1
#define SIZEOF_VOID_P 8
#define SIZEOF_TIME_T 8
#define SIZEOF_OFF_T 4
#define SIZEOF_FPOS_T 8
#define SIZEOF_SIZE_T 8
#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG 4
#define SIZEOF_LONG_LONG 8
#define SIZEOF_DOUBLE 8
#define SIZEOF_FLOAT 4
#define SIZEOF_WCHAR_T 2
#define SIZEOF__BOOL 1
#define SIZEOF_PID_T SIZEOF_INT
#define HAVE_UINTPTR_T 1
#define HAVE_INTPTR_T 1
#define HAVE_ERRNO_H 1
#define HAVE_FCNTL_H 1
#define HAVE_SIGNAL_H 1
#define HAVE_STDDEF_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_WCHAR_H 1
#define HAVE_COPYSIGN 1
#define HAVE_ROUND 1
#define HAVE_DECL_ISINF 1
#define HAVE_DECL_ISNAN 1
#define DOUBLE_IS_LITTLE_ENDIAN_IEEE754 1
#define WITH_DOC_STRINGS 1
#define WITH_PYMALLOC 1
#define PY_LONG_LONG long long
#define PY_LLONG_MIN LLONG_MIN
#define PY_LLONG_MAX LLONG_MAX
#define PY_ULLONG_MAX ULLONG_MAX
#define Py_SOCKET_FD_CAN_BE_GE_FD_SETSIZE
#endif
