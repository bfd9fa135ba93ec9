/* floor.h -- the kernel floor timer (floor.c), Linux only. */
#ifndef NETIFC_FLOOR_H
#define NETIFC_FLOOR_H

#include <stddef.h>
#include <stdint.h>

enum floor_op {
	FLOOR_LINKS,
	FLOOR_LINK_INDEX,
	FLOOR_LINK_NAME,
	FLOOR_ADDRS,
	FLOOR_LINK_ADDRS,
	FLOOR_LINK_GROUPS,
	FLOOR_SNAPSHOT,
	FLOOR_ROUTES,
	FLOOR_ROUTE_GET,  /* the main table's routes; the route to 127.0.0.1 */
	FLOOR_COUNTERS,
	FLOOR_LINK_COUNTERS,    /* every link's counters; one link's */
};

/* Where the requests go: a socket opened for each round, or one kept for all. */
enum floor_socket { FLOOR_FRESH, FLOOR_KEPT };

struct netifc_floor {
	enum floor_op op;
	enum floor_socket socket;
	int32_t index;          /* the link of the single-link requests */
	const char *name;
	const int32_t *zones; /* FLOOR_ADDRS, FLOOR_ROUTE*: the links whose names are asked for */
	size_t n_zones;
	int nscheck; /* each round also checks the thread's namespace, as netifc does */
};

/*
 * n rounds of op's requests; the mean time of one in *ns_per_op.  A kept
 * socket is opened before the clock starts and closed after it stops.  With
 * nscheck, each round first reads the thread's network namespace and
 * compares it with the socket's, netifc's check before it uses its kept
 * socket (the link held open from before the clock starts, as netifc holds
 * it).  Returns 0 or a negative errno (-ESTALE: the thread changed
 * namespace during the run).
 */
int netifc_floor_run(const struct netifc_floor *f, long n, double *ns_per_op);

#endif
