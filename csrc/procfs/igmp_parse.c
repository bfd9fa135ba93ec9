/*
 * procfs/igmp_parse.c -- parse /proc/net/igmp and /proc/net/igmp6 from a buffer.
 *
 *   igmp:  "1\tlo        :     1      V3\n"  then per group
 *          "\t\t\t\t010000E0     1 0:00000000\t\t0\n"
 *          (the group is the __be32 printed as a native integer)
 *   igmp6: "1    lo              ff020000000000000000000000000001     1 0000000C 0\n"
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "procfs/igmp_parse.h"

struct cursor {
	const char *p, *end;
};

/* The next line without its newline; 0 at the end. */
static int next_line(struct cursor *c, struct cursor *line)
{
	const char *nl;

	if (c->p >= c->end)
		return 0;
	nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	line->p = c->p;
	line->end = nl ? nl : c->end;
	c->p = nl ? nl + 1 : c->end;
	return 1;
}

/* The next whitespace-separated token of a line; its length, 0 at the end. */
static size_t next_token(struct cursor *line, const char **tok)
{
	const char *p = line->p;

	while (p < line->end && (*p == ' ' || *p == '\t'))
		p++;
	*tok = p;
	while (p < line->end && *p != ' ' && *p != '\t')
		p++;
	line->p = p;
	return (size_t)(p - *tok);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A positive decimal index, or -1. */
static int32_t parse_index(const char *s, size_t n)
{
	int64_t v = 0;
	size_t i;

	if (n == 0 || n > 10)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v > 0 && v <= 0x7fffffff ? (int32_t)v : -1;
}

static int parse_hex(const char *s, size_t n, uint8_t *out, size_t outlen)
{
	size_t i;

	if (n != outlen * 2)
		return -1;
	for (i = 0; i < outlen; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static int set_name(char *dst, const char *s, size_t n)
{
	if (n == 0 || n >= NETIFC_NAMESIZ)
		return -1;
	memcpy(dst, s, n);
	dst[n] = 0;
	return 0;
}

static int push_group(struct netifc_addrs *out, int family, int32_t index, const uint8_t *group,
		      const char *name)
{
	struct netifc_addr *a = netifc_addrs_push(out);
	size_t alen = netifc_family_len(family);

	if (!a)
		return -ENOMEM;
	a->family = (uint8_t)family;
	a->index = index;
	a->prefixlen = (uint8_t)(alen * 8);
	a->preferred = a->valid = NETIFC_FOREVER;
	memcpy(a->local, group, alen);
	a->scope = netifc_addr_scope(a);        /* what the kernel's group dump says */
	netifc_addr_finish(a, name);
	return 0;
}

int netifc_parse_igmp(const char *buf, size_t len, int32_t index, struct netifc_addrs *out)
{
	struct cursor c = { buf, buf + len }, line;
	char name[NETIFC_NAMESIZ] = "";
	int32_t cur = -1;
	const char *tok;
	size_t n;

	while (next_line(&c, &line)) {
		int indented = line.p < line.end && (*line.p == '\t' || *line.p == ' ');
		uint8_t g[4];
		uint32_t v;

		n = next_token(&line, &tok);
		if (!indented) {                /* a link line, or the header */
			cur = parse_index(tok, n);
			n = next_token(&line, &tok);
			if (n && tok[n - 1] == ':')
				n--;
			if (cur > 0 && set_name(name, tok, n) < 0)
				return -EPROTO;
			continue;
		}
		if (cur <= 0 || (index && cur != index))
			continue;
		if (parse_hex(tok, n, g, 4) < 0)
			return -EPROTO;
		v = (uint32_t)g[0] << 24 | (uint32_t)g[1] << 16 | (uint32_t)g[2] << 8 | g[3];
		memcpy(g, &v, 4);       /* back to the kernel's byte order */
		if (push_group(out, AF_INET, cur, g, name) < 0)
			return -ENOMEM;
	}
	return 0;
}

int netifc_parse_igmp6(const char *buf, size_t len, int32_t index, struct netifc_addrs *out)
{
	struct cursor c = { buf, buf + len }, line;
	char name[NETIFC_NAMESIZ];
	const char *tok;
	uint8_t g[16];
	int32_t idx;
	size_t n;

	while (next_line(&c, &line)) {
		n = next_token(&line, &tok);
		if (n == 0)
			continue;
		if ((idx = parse_index(tok, n)) < 0)
			return -EPROTO;
		n = next_token(&line, &tok);
		if (set_name(name, tok, n) < 0)
			return -EPROTO;
		n = next_token(&line, &tok);
		if (parse_hex(tok, n, g, 16) < 0)
			return -EPROTO;
		if (index && idx != index)
			continue;
		if (push_group(out, AF_INET6, idx, g, name) < 0)
			return -ENOMEM;
	}
	return 0;
}
