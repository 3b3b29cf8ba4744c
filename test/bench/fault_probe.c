/*
 * fault_probe.c: what appending 400 MB of rows to a growing buffer costs
 * on this host (10,000 rows of 40,000 bytes, as array_union_agg's state
 * receives 10,000 rows of 10,000 int4), by how the buffer grows:
 *
 *   realloc                 glibc realloc, doubling (what repalloc does)
 *   realloc+madvise         the same, huge pages asked for after each growth
 *   mmap reserve            one mapping, reserved up front, 4 kB pages
 *   mmap reserve+hugepage   the same with MADV_HUGEPAGE (mapped_buffer.c)
 *
 * The last is also the cost of writing a fresh 400 MB result array: a
 * floor for any aggregate that returns one.
 *
 *   gcc -O2 -o test/bench/fault_probe test/bench/fault_probe.c && test/bench/fault_probe [rows]
 *
 * rows defaults to 10,000 (test/bench/smoke.sh: 100).  The first and last
 * rows are compared with what was appended; a difference fails (exit 1).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/testclock.h"

#define ROW_BYTES	40000
#define ROWS		10000
#define RESERVE		((size_t) 1 << 32)
#define HUGE		((size_t) 2 << 20)

int
main(int argc, char **argv)
{
	int			rows = argc > 1 ? atoi(argv[1]) : ROWS;

	static const char *names[] = {"realloc", "realloc+madvise", "mmap reserve",
	"mmap reserve+hugepage"};
	char	   *row = malloc(ROW_BYTES);

	for (size_t i = 0; i < ROW_BYTES; i++)
		row[i] = (char) i;
	for (int mode = 0; mode < 4; mode++)
		for (int rep = 0; rep < 3; rep++)
		{
			size_t		cap = 256,
						n = 0;
			char	   *buf;
			long		sum = 0;
			double		t0 = now_ms(),
						t1;

			if (mode >= 2)
			{
				buf = mmap(NULL, RESERVE, PROT_READ | PROT_WRITE,
						   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
				if (buf == MAP_FAILED)
					return 1;
				if (mode == 3)
					madvise(buf, RESERVE, MADV_HUGEPAGE);
				cap = RESERVE;
			}
			else
				buf = malloc(cap);
			for (int r = 0; r < rows; r++)
			{
				if (n + ROW_BYTES > cap)
				{
					while (n + ROW_BYTES > cap)
						cap *= 2;
					buf = realloc(buf, cap);
					if (mode == 1 && cap >= 32 * HUGE)
					{
						char	   *from = (char *) (((uintptr_t) buf + HUGE - 1) & ~(uintptr_t) (HUGE - 1));

						madvise(from, cap - (from - buf) - HUGE, MADV_HUGEPAGE);
					}
				}
				memcpy(buf + n, row, ROW_BYTES);
				n += ROW_BYTES;
			}
			t1 = now_ms();
			for (size_t i = 0; i < n; i += 4096)
				sum += buf[i];
			if (n > 0 && (memcmp(buf, row, ROW_BYTES) != 0 ||
						  memcmp(buf + n - ROW_BYTES, row, ROW_BYTES) != 0))
			{
				printf("%s: the appended rows differ\n", names[mode]);
				return 1;
			}
			printf("%-22s run %d: append %zu MB in %6.1f ms (check %ld)\n",
				   names[mode], rep, n >> 20, t1 - t0, sum);
			if (mode >= 2)
				munmap(buf, RESERVE);
			else
				free(buf);
		}
	free(row);
	return 0;
}
