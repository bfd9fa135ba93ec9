/*
 * routes.h -- routes for Python (routes.c, Linux): the Route and NextHop
 * types and the route functions, as module.c adds them.
 */
#ifndef NETIFC_PY_ROUTES_H
#define NETIFC_PY_ROUTES_H

#include "python/record.h"

int netifc_routes_add(PyObject *m, modstate *st);
extern PyMethodDef netifc_routes_functions[];

#endif
