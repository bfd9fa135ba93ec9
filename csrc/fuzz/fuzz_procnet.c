/*
 * libFuzzer target: the /proc/net/igmp and /proc/net/igmp6 parsers.
 * Byte 0 picks the file and whether one link (index 1) or all are kept.
 */
#include <stdint.h>

#include "procfs/igmp_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netifc_addrs t = { 0 };
	int32_t index;

	if (size < 1)
		return 0;
	index = (data[0] & 2) ? 1 : 0;
	if (data[0] & 1)
		netifc_parse_igmp6((const char *)data + 1, size - 1, index, &t);
	else
		netifc_parse_igmp((const char *)data + 1, size - 1, index, &t);
	netifc_addrs_free(&t);
	return 0;
}
