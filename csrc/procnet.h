/*
 * procnet.h -- multicast groups from /proc/net/igmp and /proc/net/igmp6
 * (Linux): the pure parsers (procnet.c) and the reader (proc.c).
 */
#ifndef NETIFC_PROCNET_H
#define NETIFC_PROCNET_H

#include <stddef.h>
#include <stdint.h>

#include "netifc.h"

/* Parse a whole file's text; index 0 takes every link's groups. */
int netifc_parse_igmp(const char *buf, size_t len, int32_t index, struct netifc_addrs *out);
int netifc_parse_igmp6(const char *buf, size_t len, int32_t index, struct netifc_addrs *out);

/* Read the calling thread's /proc/net/igmp (AF_INET) or igmp6 (AF_INET6) and parse it. */
int netifc_proc_groups(int family, int32_t index, struct netifc_addrs *out);

#endif
