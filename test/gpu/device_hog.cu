/*
 * device_hog.cu
 *	  Holds device memory, to see what setops does when servers that share
 *	  a GPU find it full (test/shard/oversubscribe.sh).
 *
 *   device_hog LEAVE_MB SECONDS   allocate all of device 0's free memory
 *                                 but LEAVE_MB, print "held N MB", hold it
 *                                 SECONDS (or until killed), then exit
 */
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include <cuda_runtime.h>

int
main(int argc, char **argv)
{
	size_t		leave = (size_t) (argc > 1 ? atol(argv[1]) : 256) << 20;
	int			seconds = argc > 2 ? atoi(argv[2]) : 600;
	size_t		free_bytes = 0,
				total = 0,
				held = 0;
	const size_t piece = (size_t) 256 << 20;	/* then a quarter, ... 1 MB */

	if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
	{
		fprintf(stderr, "device_hog: no device\n");
		return 1;
	}
	/* in pieces, large then small, down to LEAVE_MB: one allocation of
	 * nearly all free memory may fail where many smaller ones succeed */
	for (size_t size = piece; size >= ((size_t) 1 << 20); size /= 4)
		while (free_bytes > leave + size)
		{
			void	   *p;

			if (cudaMalloc(&p, size) != cudaSuccess ||
				cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
				break;
			held += size;
		}
	printf("held %zu MB, %zu MB free of %zu\n", held >> 20, free_bytes >> 20, total >> 20);
	fflush(stdout);
	sleep(seconds);
	return 0;
}
