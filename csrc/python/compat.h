/*
 * compat.h -- netifc.compat.netifaces' answer for a link in C (compat.c,
 * Linux): the module function and the keys it keeps, as module.c adds them.
 */
#ifndef NETIFC_PY_COMPAT_H
#define NETIFC_PY_COMPAT_H

#include "python/record.h"

extern PyMethodDef netifc_compat_functions[];
int netifc_compat_add(PyObject *m, modstate *st);

#endif
