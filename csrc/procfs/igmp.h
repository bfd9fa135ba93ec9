/*
 * igmp.h -- multicast groups read from /proc/net/igmp{,6} (igmp.c): the
 * fallback of the netlink backend and the groups of the getifaddrs backend
 * on Linux.
 */
#ifndef NETIFC_PROCFS_IGMP_H
#define NETIFC_PROCFS_IGMP_H

#include "core/netifc.h"

/* Read the calling thread's /proc/net/igmp (AF_INET) or igmp6 (AF_INET6) and parse it. */
int netifc_proc_groups(int family, int32_t index, struct netifc_addrs *out);

#endif
