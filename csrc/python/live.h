/*
 * live.h -- the live tables for Python (live.c, Linux): the _Tables type,
 * as module.c adds it.
 */
#ifndef NETIFC_LIVE_H
#define NETIFC_LIVE_H

#include "python/record.h"

int netifc_live_add(PyObject *m, modstate *st);

#endif
