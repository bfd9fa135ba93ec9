/*
 * abi.h -- what the binding needs of CPython that not every build it
 * supports has: 3.9's missing helpers, and object access that builds under
 * the Limited API too (abi3: setup.py sets Py_LIMITED_API), where the
 * layouts the full API's macros read are hidden.
 */
#ifndef NETIFC_ABI_H
#define NETIFC_ABI_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>       /* PyMemberDef, there alone before 3.12 */

#include <stdio.h>

/* The end of a module's slots: room for netifc_module_init's slot, then the end. */
/* clang-format off */
#define NETIFC_MODULE_SLOTS_END {0, NULL}, {0, NULL}
/* clang-format on */

/*
 * PyInit's answer for def, whose slots end in NETIFC_MODULE_SLOTS_END: the
 * first {0, NULL} becomes {Py_mod_multiple_interpreters,
 * Py_MOD_PER_INTERPRETER_GIL_SUPPORTED} where the CPython that imports the
 * module knows that slot (3.12 on), and stays the end elsewhere; each
 * interpreter's import calls it again, and finds it set.  Decided
 * when the module is imported, since an abi3 build may come from headers
 * older than the slot, and an older CPython refuses a slot it does not know.
 * 3 and 2 are the slot's and the value's numbers in the stable ABI.
 */
static inline PyObject *netifc_module_init(PyModuleDef *def)
{
	PyModuleDef_Slot *slot = def->m_slots;
	int major = 0, minor = 0;

	while (slot->slot != 0 && slot->slot != 3) /* 3: set by an earlier import */
		slot++;
	if (sscanf(Py_GetVersion(), "%d.%d", &major, &minor) == 2 &&
	    (major > 3 || (major == 3 && minor >= 12)))
		*slot = (PyModuleDef_Slot){3, (void *)2};
	return PyModuleDef_Init(def);
}

#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *netifc_new_ref(PyObject *o)
{
	Py_INCREF(o);
	return o;
}
#define Py_NewRef(o) netifc_new_ref((PyObject *)(o))   /* any object pointer, as 3.10's */

/* 3.10's: adds o to m under name without taking the caller's reference. */
static inline int netifc_module_add_ref(PyObject *m, const char *name, PyObject *o)
{
	Py_XINCREF(o);
	if (PyModule_AddObject(m, name, o) < 0) {
		Py_XDECREF(o);
		return -1;
	}
	return 0;
}
#define PyModule_AddObjectRef netifc_module_add_ref
#endif
#ifndef Py_TPFLAGS_IMMUTABLETYPE
#define Py_TPFLAGS_IMMUTABLETYPE 0
#endif
#ifndef Py_XSETREF
#define Py_XSETREF(dst, src) \
	do { \
		PyObject *old_ = (PyObject *)(dst); \
		(dst) = (src); \
		Py_XDECREF(old_); \
	} while (0)
#endif

/*
 * Object access: the full build keeps the macros; the limited one calls
 * the functions.
 */
#ifdef Py_LIMITED_API
#define NETIFC_TUPLE_SIZE(t) PyTuple_Size(t)
#define NETIFC_TUPLE_ITEM(t, i) PyTuple_GetItem(t, i)
#define NETIFC_TUPLE_SET(t, i, o) ((void)PyTuple_SetItem(t, i, o))
#define NETIFC_LIST_SIZE(l) PyList_Size(l)
#define NETIFC_LIST_ITEM(l, i) PyList_GetItem(l, i)
#define NETIFC_LIST_SET(l, i, o) ((void)PyList_SetItem(l, i, o))
#define NETIFC_BYTES_SIZE(b) PyBytes_Size(b)
#define NETIFC_BYTES_DATA(b) PyBytes_AsString(b)
#define NETIFC_DICT_SIZE(d) PyDict_Size(d)
#define NETIFC_STRUCTSEQ_ITEM(s, i) PyStructSequence_GetItem(s, i)
#define NETIFC_STRUCTSEQ_SET(s, i, o) PyStructSequence_SetItem(s, i, o)
#define NETIFC_TP_ALLOC(tp) ((allocfunc)PyType_GetSlot(tp, Py_tp_alloc))
#define NETIFC_TP_FREE(tp) ((freefunc)PyType_GetSlot(tp, Py_tp_free))
#define NETIFC_TP_DEALLOC(tp) ((destructor)PyType_GetSlot(tp, Py_tp_dealloc))
#define NETIFC_TP_DESCR_SET(tp) ((descrsetfunc)PyType_GetSlot(tp, Py_tp_descr_set))
#define NETIFC_TP_BASE(tp) ((PyTypeObject *)PyType_GetSlot(tp, Py_tp_base))
#define NETIFC_TP_FLAGS(tp) PyType_GetFlags(tp)
#else
#define NETIFC_TUPLE_SIZE(t) PyTuple_GET_SIZE(t)
#define NETIFC_TUPLE_ITEM(t, i) PyTuple_GET_ITEM(t, i)
#define NETIFC_TUPLE_SET(t, i, o) PyTuple_SET_ITEM(t, i, o)
#define NETIFC_LIST_SIZE(l) PyList_GET_SIZE(l)
#define NETIFC_LIST_ITEM(l, i) PyList_GET_ITEM(l, i)
#define NETIFC_LIST_SET(l, i, o) PyList_SET_ITEM(l, i, o)
#define NETIFC_BYTES_SIZE(b) PyBytes_GET_SIZE(b)
#define NETIFC_BYTES_DATA(b) PyBytes_AS_STRING(b)
#define NETIFC_DICT_SIZE(d) PyDict_GET_SIZE(d)
#define NETIFC_STRUCTSEQ_ITEM(s, i) PyStructSequence_GET_ITEM(s, i)
#define NETIFC_STRUCTSEQ_SET(s, i, o) PyStructSequence_SET_ITEM(s, i, o)
#define NETIFC_TP_ALLOC(tp) ((tp)->tp_alloc)
#define NETIFC_TP_FREE(tp) ((tp)->tp_free)
#define NETIFC_TP_DEALLOC(tp) ((tp)->tp_dealloc)
#define NETIFC_TP_DESCR_SET(tp) ((tp)->tp_descr_set)
#define NETIFC_TP_BASE(tp) ((tp)->tp_base)
#define NETIFC_TP_FLAGS(tp) ((tp)->tp_flags)
#endif

/* A type's tp_basicsize (item 0) or tp_itemsize (item 1); -1 and an error when unreadable. */
static inline Py_ssize_t netifc_type_size(PyTypeObject *tp, int item)
{
#ifdef Py_LIMITED_API
	PyObject *v =
		PyObject_GetAttrString((PyObject *)tp, item ? "__itemsize__" : "__basicsize__");
	Py_ssize_t n = v ? PyLong_AsSsize_t(v) : -1;

	Py_XDECREF(v);
	return n;
#else
	return item ? tp->tp_itemsize : tp->tp_basicsize;
#endif
}

/*
 * The name of a type for messages, as a new str (NULL on failure): its
 * tp_name, or under the Limited API "module.qualname" ("int" for builtins).
 */
static inline PyObject *netifc_type_name(PyTypeObject *tp)
{
#ifdef Py_LIMITED_API
	PyObject *mod = PyObject_GetAttrString((PyObject *)tp, "__module__");
	PyObject *qual = mod ? PyObject_GetAttrString((PyObject *)tp, "__qualname__") : NULL;
	PyObject *res = NULL;

	if (qual && PyUnicode_Check(mod) && PyUnicode_CompareWithASCIIString(mod, "builtins"))
		res = PyUnicode_FromFormat("%U.%U", mod, qual);
	else if (qual)
		res = Py_NewRef(qual);
	Py_XDECREF(mod);
	Py_XDECREF(qual);
	return res;
#else
	return PyUnicode_FromString(tp->tp_name);
#endif
}

/*
 * Raise exc with fmt, whose one conversion (%U) is tp's __name__, as the
 * Python layer's type(x).__name__ writes it (one message for one mistake,
 * from C or Python, full API or Limited); NULL.
 */
static inline PyObject *netifc_type_error(PyObject *exc, const char *fmt, PyTypeObject *tp)
{
	PyObject *name = PyObject_GetAttrString((PyObject *)tp, "__name__");

	if (name) {
		PyErr_Format(exc, fmt, name);
		Py_DECREF(name);
	}
	return NULL;
}

#endif
