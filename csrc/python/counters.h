/*
 * counters.h -- link counters and link settings (counters.c): the Counters
 * and LinkSettings types and counters(), as module.c adds them, and the
 * calls an Interface and a NetNS make for their own.
 */
#ifndef NETIFC_COUNTERS_H
#define NETIFC_COUNTERS_H

#include "python/record.h"

extern const struct netifc_record_type netifc_counters_record;
int netifc_counters_add(PyObject *m, modstate *st);     /* LinkSettings, _counter_fields */
extern PyMethodDef netifc_counters_functions[];

struct netifc_ns;
PyObject *netifc_counters_all(modstate *st, struct netifc_ns *ns);    /* ns NULL: the thread's */
PyObject *netifc_counters_of(modstate *st, struct netifc_ns *ns, int32_t index, const char *name);
PyObject *netifc_link_settings_of(modstate *st, struct netifc_ns *ns, int32_t index,
				  const char *name);

#endif
