/*
 * routes.h -- routes for Python (routes.c, Linux): the Route and NextHop
 * types and the route functions, as module.c adds them.
 */
#ifndef NETIFC_PY_ROUTES_H
#define NETIFC_PY_ROUTES_H

#include "python/record.h"

extern const struct netifc_record_type netifc_route_record, netifc_hop_record;
extern PyMethodDef netifc_routes_functions[];

/* Adds the _RouteWatch type (a wait's route notifications) to module m. */
int netifc_route_watch_add(PyObject *m, modstate *st);

#endif
