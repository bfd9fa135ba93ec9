/*
 * live_table.h -- the live tables (Linux): their layout, which the _Tables
 * type (live.c) and the tables' own logic (live_table.c) share, and that
 * logic.
 */
#ifndef NETIFC_LIVE_TABLE_H
#define NETIFC_LIVE_TABLE_H

#include "python/record.h"
#include "live/changes.h"
#include "netlink/socket.h"
#include "python/live_lock.h"
#include "netlink/watch.h"

/* The changes by key, plain C (live/changes.h); their records are PyObject *s here. */
typedef struct lt_change entry;
typedef struct lt_changes delta;

typedef struct {
	PyObject *tuple;        /* NULL: not kept (groups, until a live table is asked) */
	delta d;
	struct lt_expiry *exp;     /* the tuple's records', by position; NULL: none runs out */
	int64_t next_age;       /* when a lifetime of the tuple next drops a second */
} table;

typedef struct {
	PyObject_HEAD
	PyObject *module;
	PyObject *netns;        /* the _NetNS watched (its dumps, its links), or NULL */
	struct nl_watch w;
	int open;               /* nl_watch_free is owed */
	uint8_t live;           /* reads take what is pending first */
	uint8_t stale;          /* events were lost and the tables not read since */
	uint8_t keep_groups;
	uint8_t late;           /* this read's notifications may be old (live.c: LATE_MS) */
	int64_t read_at;        /* when the socket was last read (lt_now) */
	uint32_t seq;
	char ns_id[NL_NS_ID_SIZE];      /* the namespace watched (nl_thread_ns), "": not known */
	table links, addrs, groups;
	uint32_t *by_name;      /* positions in links.tuple by name, made on first use */
	PyObject *cache;        /* the Python layer's, dropped at every change */
	PyObject *kinds;        /* the last event kinds _events() was given, found right */
	PyObject *new_object;   /* object.__new__, what the events are made by (live_events.h) */
	PyObject *dropped[2];   /* let go under the lock: released once it is (live.c) */
	struct lt_lock lk;      /* guards all of the above (live_lock.h) */
} TablesObject;

#define TABLES(o) ((TablesObject *)(o))

/* python/live_table.c: keys, the changes told, and the tables as they are now. */
entry *lt_entry(delta *d, const struct lt_key *k);         /* made when new; NULL: no memory */
void lt_clear(table *t);
size_t lt_len(PyObject *tuple);

/* Borrowed references, NULL when there is none: */
PyObject *lt_link_in_tuple(PyObject *tuple, int32_t index);
PyObject *lt_link(TablesObject *t, int32_t index, uint32_t *gone);     /* *gone: when removed */
PyObject *lt_addr(TablesObject *t, table *tab, const struct lt_key *k, uint32_t gone);
PyObject *lt_link_named(TablesObject *t, const char *name); /* merged; NULL+error: no memory */

/* New references: */
PyObject *lt_rezoned(modstate *st, PyObject *rec, PyObject *link);
PyObject *lt_ordered(TablesObject *t, PyObject *tuple, int links);
PyObject *lt_records_of(TablesObject *t, PyObject *tuple, int32_t index);
PyObject *lt_records_now(TablesObject *t, table *tab, int32_t index); /* a list; merged or not */

int lt_expiries(TablesObject *t, table *tab);   /* of a tuple just read: 0, or -1 and an error */
int lt_age(TablesObject *t, table *tab); /* merged: counted down to now; 1 when the tuple is new */

int lt_merge(TablesObject *t); /* every change merged in: 0, or -1 and an error */
int lt_bound(TablesObject *t); /* merged once they outnumber a table */

#endif
