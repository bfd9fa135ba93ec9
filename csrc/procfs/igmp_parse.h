/*
 * igmp_parse.h -- multicast groups from the text of /proc/net/igmp and
 * /proc/net/igmp6 (Linux), as pure functions over a buffer (igmp_parse.c).
 */
#ifndef NETIFC_PROCFS_IGMP_PARSE_H
#define NETIFC_PROCFS_IGMP_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/netifc.h"

/* Parse a whole file's text; index 0 takes every link's groups. */
int netifc_parse_igmp(const char *buf, size_t len, int32_t index, struct netifc_addrs *out);
int netifc_parse_igmp6(const char *buf, size_t len, int32_t index, struct netifc_addrs *out);

#endif
