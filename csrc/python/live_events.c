/*
 * python/live_events.c -- the Watcher's events: made from the classes the
 * Python layer hands to _events(), through their public protocol only
 * (object.__new__ and attribute setting), so any class is safe to give.
 */
#include "python/live_events.h"

static const Py_ssize_t nfields[EV_KINDS] = {1, 2, 1, 1, 2, 1, 1, 1, 3};

int lt_kinds_check(PyObject *kinds)
{
	PyObject *spec, *names;
	Py_ssize_t i, k;
	int ok = PyTuple_Check(kinds) && NETIFC_TUPLE_SIZE(kinds) == EV_KINDS;

	for (i = 0; ok && i < EV_KINDS; i++) {
		spec = NETIFC_TUPLE_ITEM(kinds, i);
		ok = PyTuple_Check(spec) && NETIFC_TUPLE_SIZE(spec) == 2 &&
		     PyType_Check(NETIFC_TUPLE_ITEM(spec, 0)) &&
		     PyTuple_Check(names = NETIFC_TUPLE_ITEM(spec, 1)) &&
		     NETIFC_TUPLE_SIZE(names) == nfields[i];
		for (k = 0; ok && k < nfields[i]; k++)
			ok = PyUnicode_Check(NETIFC_TUPLE_ITEM(names, k));
	}
	if (!ok)
		PyErr_Format(PyExc_TypeError, "_events() takes %d pairs (class, field names)",
			     EV_KINDS);
	return ok;
}

PyObject *lt_event(PyObject *object_new, PyObject *kinds, int kind, PyObject *a, PyObject *b,
		   PyObject *c)
{
	PyObject *spec = NETIFC_TUPLE_ITEM(kinds, kind);
	PyObject *names = NETIFC_TUPLE_ITEM(spec, 1), *fields[3] = {a, b, c}, *ev;
	Py_ssize_t i;

	ev = PyObject_CallFunctionObjArgs(object_new, NETIFC_TUPLE_ITEM(spec, 0), NULL);
	for (i = 0; ev && i < nfields[kind]; i++)
		if (PyObject_GenericSetAttr(ev, NETIFC_TUPLE_ITEM(names, i), fields[i]) < 0)
			Py_CLEAR(ev);
	return ev;
}
