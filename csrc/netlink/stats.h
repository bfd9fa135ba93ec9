/* stats.h -- the rtnetlink backend's link counters (stats.c). */
#ifndef NETIFC_NETLINK_STATS_H
#define NETIFC_NETLINK_STATS_H

#include "core/netifc.h"

/* The backend's counters(): every link's (index 0) or one link's. */
int netifc_nl_counters(struct netifc_call *c, int32_t index, struct netifc_counters_table *out);

#endif
