/* floor.h -- the kernel floor timer (floor.c), Linux only. */
#ifndef NETIFC_FLOOR_H
#define NETIFC_FLOOR_H

#include <stddef.h>
#include <stdint.h>

enum floor_op {
	FLOOR_LINKS, FLOOR_LINK_INDEX, FLOOR_LINK_NAME, FLOOR_ADDRS,
	FLOOR_LINK_ADDRS, FLOOR_LINK_GROUPS, FLOOR_SNAPSHOT,
};

struct netifc_floor {
	enum floor_op op;
	int32_t index;          /* the link of the single-link requests */
	const char *name;
	const int32_t *zones;   /* FLOOR_ADDRS: the links whose names are asked for */
	size_t n_zones;
};

/* n rounds of op's requests; the mean time of one in *ns_per_op. */
int netifc_floor_run(const struct netifc_floor *f, long n, double *ns_per_op);

#endif
