/*
 * replay.c -- a main() for a libFuzzer target where libFuzzer cannot run
 * (musl): every file named on the command line, or found in a directory
 * named there, goes once through LLVMFuzzerTestOneInput.  Exit status 0
 * when every input was read; a finding traps or aborts in the target.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input, in a buffer of exactly its size (so a read past it is past the heap block). */
static int replay_file(const char *path)
{
	FILE *f;
	uint8_t *buf = NULL;
	long size;
	int r = -1;

	errno = 0;
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0)
		goto out;
	if (!(buf = malloc(size ? (size_t)size : 1)) ||
	    fread(buf, 1, (size_t)size, f) != (size_t)size)
		goto out;
	LLVMFuzzerTestOneInput(buf, (size_t)size);
	r = 0;
out:
	if (r < 0)
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno ? errno : EIO));
	if (f)
		fclose(f);
	free(buf);
	return r;
}

/* A file, or each regular file of a directory; the count replayed, or -1. */
static long replay_path(const char *path)
{
	char sub[4096];
	struct dirent *e;
	struct stat st;
	long n = 0;
	DIR *d;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path) < 0 ? -1 : 1;
	if (!(d = opendir(path)))
		return -1;
	while (n >= 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= (int)sizeof sub ||
		    stat(sub, &st) < 0)
			n = -1;
		else if (S_ISREG(st.st_mode))
			n = replay_file(sub) < 0 ? -1 : n + 1;
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	long n, total = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if ((n = replay_path(argv[i])) < 0)
			return 1;
		total += n;
	}
	printf("replay: %ld inputs\n", total);
	return total > 0 ? 0 : 1;
}
