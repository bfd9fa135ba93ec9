/*
 * records.h -- the Interface and Addr types (records.c), as module.c adds
 * them: the types and the functions pickle rebuilds them with.
 */
#ifndef NETIFC_RECORDS_H
#define NETIFC_RECORDS_H

#include "python/record.h"

int netifc_records_add(PyObject *m, modstate *st);
extern PyMethodDef netifc_records_functions[];

#endif
