/* backend.c -- the one place a backend is chosen. */
#include <string.h>

#include "core/netifc.h"

#ifdef _WIN32
extern const struct netifc_backend netifc_backend_windows;
#else
#ifdef __linux__
extern const struct netifc_backend netifc_backend_netlink;
#endif
extern const struct netifc_backend netifc_backend_getifaddrs;
#endif

static const struct netifc_backend *const backends[] = {
#ifdef _WIN32
	&netifc_backend_windows,
#else
#ifdef __linux__
	&netifc_backend_netlink,
#endif
	&netifc_backend_getifaddrs,
#endif
};

const struct netifc_backend *netifc_backend_find(const char *name)
{
	size_t i;

	if (!name || !*name)
		return backends[0];
	for (i = 0; i < sizeof backends / sizeof *backends; i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

const char *netifc_backend_name(size_t i)
{
	return i < sizeof backends / sizeof *backends ? backends[i]->name : NULL;
}
