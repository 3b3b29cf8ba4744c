/*
 * count_many_test.cu
 *	  The GPU service's shared trips (setops_gpu_count_many): many counts of
 *	  keys already on the device, answered by segmented launches (counts of
 *	  one key type and mode together, skewed or empty ones alone), each
 *	  answer checked against a per-key count merge written here (no engine
 *	  code) and against the same count run alone (setops_gpu_setop).  Every
 *	  other batch goes as trips in flight at once, through the start, poll
 *	  and finish steps, as the service's count runner keeps them.
 *
 * Every batch mixes int4 and int8, the three count modes, sizes on the
 * count tile's multiples and one off (na + nb and each side), duplicate
 * runs crossing tiles, extremes, empty and skewed inputs, and one count
 * whose input is out of order: that count must report its argument and
 * position while its neighbours answer.
 *
 * Then count batches (setops_gpu_count_batch, the count window functions'
 * one launch): pairs in host memory with a shared B or one each, every
 * pair's answer against the same reference.
 *
 *   test/gpu/count_many_test [quick|full] [--mutate]
 *   test/gpu/count_many_test time
 * --mutate makes the reference wrong for one count a batch: the run must
 * then fail (it shows that the checks can).  time measures the GPU's side
 * of the service's count path, no PostgreSQL: a trip's latency (start,
 * poll, finish) by trip size, and the counts a second one device answers
 * with 1 to 8 trips in flight on streams of their own, as count runners
 * keep them (with the mean time of a poll of a trip's end), for stored
 * int4 rows of 20k and 1M keys (the load bench's); every answer of the
 * timed trips is checked against the count alone, and one against a
 * per-key merge.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

#include "../../engine/gpu/setops_gpu.h"
#include "../common/testgen.h"

#include <cuda_runtime.h>
#include "cuda_ok.h"

static int	mutate = 0;
static long checks = 0,
			failures = 0;

/* The reference: runs of equal keys, counted on each side. */
template <typename Key>
static int64_t
reference(int mode, const std::vector<Key> &a, const std::vector<Key> &b)
{
	size_t		i = 0,
				j = 0;
	int64_t		common = 0,
				lacking = 0;

	while (i < a.size() || j < b.size())
	{
		Key			k = i < a.size() && (j >= b.size() || a[i] <= b[j]) ? a[i] : b[j];
		int64_t		ca = 0,
					cb = 0;

		while (i < a.size() && a[i] == k)
			i++, ca++;
		while (j < b.size() && b[j] == k)
			j++, cb++;
		common += ca < cb ? ca : cb;
		if (cb > ca)
			lacking++;
	}
	if (mode == SETOPS_GPU_COUNT_OVERLAPS)
		return common > 0;
	if (mode == SETOPS_GPU_COUNT_CONTAINS)
		return lacking > 0;		/* 0: b within a; the GPU's positive value is its own */
	return common;
}

struct Case
{
	SetopsKeyType key_type;
	int			mode;
	std::vector<int64_t> a,
				b;				/* keys, widened; narrowed on upload */
	int			unsorted_arg;	/* 0, or the argument made out of order */
	int64_t		unsorted_pos;
	void	   *a_dev,
			   *b_dev;
	int64_t		expect;
};

static void
fill(std::vector<int64_t> &v, int64_t n, SetopsKeyType kt, int salt)
{
	TestShape	shape = (TestShape) (testgen_rnd() % SHAPE_COUNT);

	v.resize(n);
	if (n == 0)
		return;
	if (kt == SETOPS_KEY_INT32)
	{
		std::vector<int32_t> t(n);

		testgen_i32(t.data(), n, shape, salt);
		for (int64_t i = 0; i < n; i++)
			v[i] = t[i];
	}
	else
		testgen_i64(v.data(), n, shape, salt);
}

/* A size on or one off a multiple of the count tile, or a random one. */
static int64_t
pick_size(int tile, int64_t most)
{
	switch (testgen_rnd() % 4)
	{
		case 0:
			return testgen_range(0, most);
		case 1:
			return testgen_range(0, 3) * tile + testgen_range(-1, 1) + (tile > 1 ? tile : 1);
		case 2:
			return testgen_range(0, 40);
		default:
			return testgen_range(0, tile * 2);
	}
}

static void *
upload(const std::vector<int64_t> &v, SetopsKeyType kt)
{
	size_t		ks = kt == SETOPS_KEY_INT32 ? 4 : 8;
	void	   *dev = NULL;
	char		err[SETOPS_GPU_ERRLEN];
	std::vector<int32_t> narrow;
	const void *src = v.data();

	if (kt == SETOPS_KEY_INT32)
	{
		narrow.assign(v.begin(), v.end());
		src = narrow.data();
	}
	/* an empty input still has a place on the device, as a cached one does */
	if (setops_gpu_buffer_alloc(v.size() * ks + 16, &dev, err, sizeof(err)) != SETOPS_GPU_OK)
	{
		fprintf(stderr, "buffer: %s\n", err);
		exit(2);
	}
	if (!v.empty())
		CUDA_OK(cudaMemcpy(dev, src, v.size() * ks, cudaMemcpyHostToDevice));
	return dev;
}

static void
make_case(Case &c, int k, int nbatch, bool full)
{
	int			tile;
	int64_t		most = full ? 200000 : 30000;

	c.key_type = testgen_rnd() % 2 ? SETOPS_KEY_INT32 : SETOPS_KEY_INT64;
	c.mode = SETOPS_GPU_COUNT_INTERSECT + (int) (testgen_rnd() % 3);
	tile = setops_gpu_count_tile_keys(c.key_type);
	c.unsorted_arg = 0;
	c.unsorted_pos = -1;
	if (k == 0)
	{
		/* one long run crossing several tiles, on both sides */
		int64_t		na = 3 * (int64_t) tile + 1,
					nb = 2 * (int64_t) tile - 1;

		c.a.assign(na, 7);
		c.b.assign(nb, 7);
		c.b[0] = 6;
	}
	else if (k == 1)
	{
		/* skewed: the skew path's, alone */
		fill(c.a, 12, c.key_type, k);
		fill(c.b, full ? 2000000 : 400000, c.key_type, k);
	}
	else if (k == 2)
	{
		c.a.clear();
		fill(c.b, testgen_range(0, 5), c.key_type, k);
	}
	else if (k == nbatch - 1)
	{
		/* out of order at a random place of one argument */
		fill(c.a, pick_size(tile, most) + 2, c.key_type, k);
		fill(c.b, pick_size(tile, most) + 2, c.key_type, k);
		std::vector<int64_t> &v = testgen_rnd() % 2 ? c.a : c.b;
		int64_t		pos = testgen_range(1, (int64_t) v.size() - 1);
		int64_t		top = c.key_type == SETOPS_KEY_INT32 ? INT_MAX : INT64_MAX;

		v[pos - 1] = top;
		v[pos] = top - 1;
		for (int64_t i = pos + 1; i < (int64_t) v.size(); i++)
			v[i] = top;
		c.unsorted_arg = &v == &c.a ? 1 : 2;
		c.unsorted_pos = pos;
		/* (overlaps may answer yes on a common key before it reads the break) */
		if (c.mode == SETOPS_GPU_COUNT_OVERLAPS)
			c.mode = SETOPS_GPU_COUNT_INTERSECT;
	}
	else
	{
		fill(c.a, pick_size(tile, most), c.key_type, k);
		fill(c.b, pick_size(tile, most), c.key_type, k);
		/* half the time the b side is a's own keys thinned, so that
		 * contains and long common runs come up */
		if (testgen_rnd() % 2 && !c.a.empty())
		{
			std::vector<int64_t> t;

			for (size_t i = 0; i < c.a.size(); i++)
				if (testgen_rnd() % 3)
					t.push_back(c.a[i]);
			c.b = t;
		}
	}
	c.a_dev = upload(c.a, c.key_type);
	c.b_dev = upload(c.b, c.key_type);
	c.expect = reference<int64_t>(c.mode, c.a, c.b);
}

static void
args_of(SetopsGpuSetopArgs *x, const Case &c)
{
	memset(x, 0, sizeof(*x));
	x->op = SETOPS_OP_INTERSECT;
	x->key_type = c.key_type;
	x->a_dev = c.a_dev;
	x->na = (int64_t) c.a.size();
	x->b_dev = c.b_dev;
	x->nb = (int64_t) c.b.size();
	x->count_mode = c.mode;
	/* the service knows a cached array's order: only the unsorted one is unknown */
	x->inputs_sorted = c.unsorted_arg == 0 && testgen_rnd() % 2;
}

static bool
answer_ok(const Case &c, const SetopsGpuSetopArgs *x, SetopsGpuStatus st, int64_t expect,
		  const char *how, char *err)
{
	bool		ok;

	checks++;
	if (st != SETOPS_GPU_OK)
	{
		printf("FAIL %s: status %d (%s), key %d mode %d na %zu nb %zu\n", how, (int) st, err,
			   (int) c.key_type, c.mode, c.a.size(), c.b.size());
		return false;
	}
	if (c.unsorted_arg)
		ok = x->unsorted_arg == c.unsorted_arg && x->unsorted_pos == c.unsorted_pos;
	else if (c.mode == SETOPS_GPU_COUNT_CONTAINS)
		ok = x->unsorted_arg == 0 && (x->out_count > 0) == (expect > 0);
	else
		ok = x->unsorted_arg == 0 && x->out_count == expect;
	if (!ok)
		printf("FAIL %s: key %d mode %d na %zu nb %zu: got %" PRId64 " (unsorted %d at %" PRId64
			   "), expected %" PRId64 " (unsorted %d at %" PRId64 ")\n",
			   how, (int) c.key_type, c.mode, c.a.size(), c.b.size(), x->out_count,
			   x->unsorted_arg, x->unsorted_pos, expect, c.unsorted_arg, c.unsorted_pos);
	return ok;
}

/*
 * Append keys, narrowed to ks bytes, to a host batch (aligned: from a
 * 16-byte boundary, as the GPU's tiles load them; else anywhere, which the
 * batch must then move); their first index.
 */
static int64_t
append_keys(std::vector<char> &host, const std::vector<int64_t> &keys, size_t ks, bool aligned)
{
	int64_t		first;

	while (aligned && host.size() % 16 != 0)
		host.push_back(0x5a);
	first = (int64_t) (host.size() / ks);

	for (size_t j = 0; j < keys.size(); j++)
	{
		int64_t		v = keys[j];
		int32_t		v4 = (int32_t) v;
		const char *p = ks == 4 ? (const char *) &v4 : (const char *) &v;

		host.insert(host.end(), p, p + ks);
	}
	return first;
}

/*
 * Count batches (setops_gpu_count_batch, the count window functions'
 * path): pairs laid out in host memory as a batch, A's rows end to end or
 * not, B shared by every pair or one per pair; rows on the count tile's
 * multiples and one off, empty, one much larger than the rest, runs
 * across tiles, extremes.  Each pair's answer against the reference.
 * Some rounds give every third row from device buffers instead (a_dev: the
 * device cache's rows, their a_start unused and set out of range).
 */
static void
count_batch_round(int bi, bool full)
{
	SetopsKeyType kt = bi % 2 ? SETOPS_KEY_INT64 : SETOPS_KEY_INT32;
	int			mode = SETOPS_GPU_COUNT_INTERSECT + (bi / 2) % 3;
	bool		shared = bi % 4 < 2;
	bool		aligned = bi % 5 == 4;	/* else rows start anywhere */
	int			tile = setops_gpu_count_tile_keys(kt);
	int64_t		np = bi % 7 == 0 ? (full ? 40000 : 6000) : testgen_range(1, 300);
	int64_t		most = full ? 60000 : 12000;
	size_t		ks = kt == SETOPS_KEY_INT32 ? 4 : 8;
	std::vector<std::vector<int64_t> > rows(np), bs(shared ? 1 : np);
	std::vector<int64_t> a_start(np), a_len(np), b_start(np), b_len(np), out(np, -7);
	std::vector<char> a_host, b_host;
	bool		on_device = bi % 6 >= 3;
	std::vector<const void *> a_dev(np, (const void *) NULL);
	SetopsGpuBatchArgs args;
	SetopsGpuStatus st;
	char		err[SETOPS_GPU_ERRLEN];
	int64_t		i,
				bad = 0;

	for (i = 0; i < (int64_t) bs.size(); i++)
	{
		/* (a B a pair in the rounds of many pairs: small, or they take minutes) */
		fill(bs[i], i == 0 && shared ? testgen_range(tile, (np > 1000 ? 2 : 6) * (int64_t) tile) :
			 np > 1000 ? testgen_range(0, 2 * (int64_t) tile + 1) : pick_size(tile, most),
			 kt, (int) i);
	}
	for (i = 0; i < np; i++)
	{
		const std::vector<int64_t> &b = bs[shared ? 0 : i];

		if (i == 1)
			fill(rows[i], full ? 3000000 : 500000, kt, (int) i);	/* much larger */
		else if (i == 2)
			rows[i].clear();
		else if (i == 3 && !b.empty())
			rows[i].assign(2 * (size_t) tile + 1, b[b.size() / 2]);	/* a run across tiles */
		else if (testgen_rnd() % (np > 1000 ? 40 : 3) == 0 && !b.empty())
		{
			/* b's keys thinned: contains and long common runs */
			for (size_t j = 0; j < b.size(); j++)
				if (testgen_rnd() % 4)
					rows[i].push_back(b[j]);
		}
		else
			fill(rows[i], np > 1000 ? testgen_range(0, 300) : pick_size(tile, most), kt, (int) i);
	}
	/* the host layout: rows end to end, or every other one moved to the end */
	for (int pass = 0; pass < 2; pass++)
		for (i = 0; i < np; i++)
			if ((bi % 3 == 0 && i % 2 == 1) == (pass == 1))
			{
				a_start[i] = append_keys(a_host, rows[i], ks, aligned);
				a_len[i] = (int64_t) rows[i].size();
			}
	for (i = 0; i < (int64_t) bs.size(); i++)
	{
		b_start[i] = append_keys(b_host, bs[i], ks, aligned);
		b_len[i] = (int64_t) bs[i].size();
	}
	for (i = 0; shared && i < np; i++)
	{
		b_start[i] = 0;
		b_len[i] = b_len[0];
	}
	memset(&args, 0, sizeof(args));
	args.op = SETOPS_OP_INTERSECT;
	args.key_type = kt;
	args.a = a_host.data();
	args.a_keys = (int64_t) (a_host.size() / ks);
	args.b = b_host.data();
	args.b_keys = (int64_t) (b_host.size() / ks);
	args.npairs = np;
	args.a_start = a_start.data();
	args.a_len = a_len.data();
	args.b_start = b_start.data();
	args.b_len = b_len.data();
	args.b_shared = shared;
	args.out_lengths = out.data();
	/*
	 * Device rows: a buffer each (as the cache's entries), or, in the rounds
	 * of many pairs, one buffer holding them all at 16-byte starts (thousands
	 * of allocations would take the round's time).
	 */
	std::vector<void *> buffers;
	if (on_device)
	{
		std::vector<char> arena;
		std::vector<size_t> at(np, 0);
		bool		one = np > 1000;

		/* keys onto the device, a buffer of their own (NULL: failed, said) */
		auto		upload = [&](const std::vector<char> &keys) -> void * {
			void	   *dev = NULL;

			if (setops_gpu_buffer_alloc(keys.size(), &dev, err, sizeof(err)) != SETOPS_GPU_OK ||
				setops_gpu_buffer_write(dev, 0, keys.data(), keys.size(), err, sizeof(err)) != SETOPS_GPU_OK)
			{
				printf("FAIL count batch %d: device rows: %s\n", bi, err);
				failures++;
				if (dev)
					setops_gpu_buffer_free(dev);
				return NULL;
			}
			buffers.push_back(dev);
			return dev;
		};

		for (i = 0; i < np; i += 3)
		{
			if (!one)
			{
				std::vector<char> own;

				append_keys(own, rows[i], ks, true);
				if ((a_dev[i] = upload(own)) == NULL)
					break;
			}
			else
				at[i] = (size_t) append_keys(arena, rows[i], ks, true) * ks;
			a_start[i] = -5;	/* unused */
		}
		if (one)
		{
			const char *dev;

			arena.resize(arena.size() + 16);
			if ((dev = (const char *) upload(arena)) != NULL)
				for (i = 0; i < np; i += 3)
					a_dev[i] = dev + at[i];
		}
		if (buffers.size() != (one ? 1 : (size_t) (np + 2) / 3))
		{
			for (void *dev : buffers)
				setops_gpu_buffer_free(dev);
			return;
		}
	}
	args.a_dev = on_device ? a_dev.data() : NULL;
	st = setops_gpu_count_batch(&args, mode, err, sizeof(err));
	for (void *dev : buffers)
		setops_gpu_buffer_free(dev);
	checks++;
	if (st != SETOPS_GPU_OK)
	{
		printf("FAIL count batch %d%s: status %d (%s)\n", bi, on_device ? " (device rows)" : "",
			   (int) st, err);
		failures++;
		return;
	}
	for (i = 0; i < np; i++)
	{
		int64_t		expect = reference<int64_t>(mode, rows[i], bs[shared ? 0 : i]) +
			(mutate && i == bi % np ? 1 : 0);
		bool		ok = mode == SETOPS_GPU_COUNT_CONTAINS ? (out[i] > 0) == (expect > 0) :
			out[i] == expect;

		checks++;
		if (!ok && bad++ < 5)
			printf("FAIL count batch %d pair %" PRId64 " of %" PRId64 ": key %d mode %d %s B, "
				   "na %zu nb %zu: got %" PRId64 ", expected %" PRId64 "\n",
				   bi, i, np, (int) kt, mode, shared ? "shared" : "own", rows[i].size(),
				   bs[shared ? 0 : i].size(), out[i], expect);
	}
	failures += bad;
}

/*
 * The same counts as trips in flight at once, as the service's count
 * runner keeps them: a third of them on stream 1 and a third on stream 2,
 * both started before either is polled; the last third starts on stream 1
 * as soon as its first trip is finished, while stream 2's may still fly.
 * Polls that found a trip still running are counted (the trips overlapped).
 */
static long polls_running = 0;

static void
count_many_in_flight(SetopsGpuSetopArgs **args, int n, SetopsGpuStatus *st,
					 char (*errs)[SETOPS_GPU_ERRLEN])
{
	int			from[3] = {0, n / 3, 2 * n / 3},
				len[3] = {n / 3, 2 * n / 3 - n / 3, n - 2 * n / 3},
				on[2] = {0, 1},		/* the part each stream runs; -1: none */
				next = 2;
	char		err[SETOPS_GPU_ERRLEN] = "";

	/* start part p on stream 1 + s, or fail its counts */
	auto		start = [&](int s, int p) {
		SetopsGpuStatus r = setops_gpu_use_stream(0, 1 + s, err, sizeof(err));

		if (r == SETOPS_GPU_OK)
			r = setops_gpu_count_many_start(args + from[p], len[p], err, sizeof(err));
		on[s] = r == SETOPS_GPU_OK ? p : -1;
		for (int k = 0; r != SETOPS_GPU_OK && k < len[p]; k++)
		{
			st[from[p] + k] = r;
			snprintf(errs[from[p] + k], SETOPS_GPU_ERRLEN, "start: %s", err);
		}
	};

	start(0, 0);
	start(1, 1);
	while (on[0] >= 0 || on[1] >= 0 || next < 3)
		for (int s = 0; s < 2; s++)
		{
			int			p = on[s],
						done = -1;

			if (p < 0)
			{
				/* (a stream whose start failed takes the last part) */
				if (s == 0 && next < 3)
					start(0, next++);
				continue;
			}
			if (setops_gpu_use_stream(0, 1 + s, err, sizeof(err)) == SETOPS_GPU_OK)
				done = setops_gpu_stream_done(err, sizeof(err));
			if (done == 0)
			{
				polls_running++;
				continue;
			}
			on[s] = -1;
			if (done > 0)
				setops_gpu_count_many_finish(args + from[p], len[p], st + from[p], errs + from[p]);
			else
				for (int k = 0; k < len[p]; k++)
				{
					st[from[p] + k] = SETOPS_GPU_ERROR;
					snprintf(errs[from[p] + k], SETOPS_GPU_ERRLEN, "polling: %s", err);
				}
			if (s == 0 && next < 3)
				start(0, next++);
		}
	(void) setops_gpu_use_device(0, err, sizeof(err));
}

/* Seconds, monotonic. */
static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *x, const void *y)
{
	double		a = *(const double *) x,
				b = *(const double *) y;

	return (a > b) - (a < b);
}

/*
 * The count path's GPU side timed (see the header): rows of n keys, shaped
 * as the load bench's (key g of row r is (g * s + [0, s)) / 4, s = 5 + r % 3).
 */
static void
time_counts(int64_t n)
{
	enum
	{
		ROWS = 16, MAXF = 8, TRIPS = 400
	};
	std::vector<int64_t> rows[ROWS];
	void	   *dev[ROWS];
	char		err[SETOPS_GPU_ERRLEN];
	static char errs[SETOPS_GPU_MANY][SETOPS_GPU_ERRLEN];
	int			sizes[] = {1, 2, 4, 8, 16};
	const char *gap = getenv("COUNT_TIME_POLL_GAP_US");
	double		poll_gap_us = gap ? atof(gap) : 0;

	for (int r = 0; r < ROWS; r++)
	{
		int			s = 5 + r % 3;

		rows[r].resize(n);
		for (int64_t g = 0; g < n; g++)
			rows[r][g] = (g * s + (int64_t) (testgen_rnd() % s)) / 4;
		dev[r] = upload(rows[r], SETOPS_KEY_INT32);
	}
	/* trip k's count i: rows (k * 7 + i) % ROWS and (k * 3 + i * 5 + 1) % ROWS */
	auto		fill_trip = [&](SetopsGpuSetopArgs *a, SetopsGpuSetopArgs **p, int k, int m) {
		for (int i = 0; i < m; i++)
		{
			int			x = (k * 7 + i) % ROWS,
						y = (k * 3 + i * 5 + 1) % ROWS;

			memset(&a[i], 0, sizeof(a[i]));
			a[i].op = SETOPS_OP_INTERSECT;
			a[i].key_type = SETOPS_KEY_INT32;
			a[i].a_dev = dev[x];
			a[i].na = n;
			a[i].b_dev = dev[y];
			a[i].nb = n;
			a[i].count_mode = SETOPS_GPU_COUNT_INTERSECT;
			a[i].inputs_sorted = true;
			p[i] = &a[i];
		}
	};
	/* the expected count of each pair (x, y), from one trip each */
	static int64_t expect[ROWS][ROWS];

	for (int x = 0; x < ROWS; x++)
		for (int y = 0; y < ROWS; y++)
		{
			SetopsGpuSetopArgs a;

			memset(&a, 0, sizeof(a));
			a.op = SETOPS_OP_INTERSECT;
			a.key_type = SETOPS_KEY_INT32;
			a.a_dev = dev[x];
			a.na = n;
			a.b_dev = dev[y];
			a.nb = n;
			a.count_mode = SETOPS_GPU_COUNT_INTERSECT;
			a.inputs_sorted = true;
			if (setops_gpu_setop(&a, err, sizeof(err)) != SETOPS_GPU_OK)
			{
				fprintf(stderr, "count_many_test time: %s\n", err);
				exit(2);
			}
			expect[x][y] = a.out_count;
		}
	if (reference(SETOPS_GPU_COUNT_INTERSECT, rows[0], rows[1]) != expect[0][1])
	{
		printf("FAIL time: count of rows 0 and 1 is %" PRId64 ", expected %" PRId64 "\n",
			   expect[0][1], reference(SETOPS_GPU_COUNT_INTERSECT, rows[0], rows[1]));
		failures++;
	}
	checks++;
	/* check trip k's answers (m counts) */
	auto		check = [&](SetopsGpuSetopArgs *a, SetopsGpuStatus *st, int k, int m) {
		for (int i = 0; i < m; i++)
		{
			checks++;
			if (st[i] != SETOPS_GPU_OK ||
				a[i].out_count != expect[(k * 7 + i) % ROWS][(k * 3 + i * 5 + 1) % ROWS])
			{
				if (failures++ < 5)
					printf("FAIL time: trip %d count %d: status %d, %" PRId64 "\n", k, i, (int) st[i],
						   a[i].out_count);
			}
		}
	};

	/* one trip at a time: latency by trip size */
	for (int si = 0; si < (int) (sizeof(sizes) / sizeof(sizes[0])); si++)
	{
		int			m = sizes[si];
		double		lat[TRIPS];
		SetopsGpuSetopArgs a[16];
		SetopsGpuSetopArgs *p[16];
		SetopsGpuStatus st[16];

		(void) setops_gpu_use_stream(0, 1, err, sizeof(err));
		for (int k = 0; k < TRIPS; k++)
		{
			double		t0;

			fill_trip(a, p, k, m);
			t0 = now_s();
			if (setops_gpu_count_many_start(p, m, err, sizeof(err)) != SETOPS_GPU_OK)
			{
				fprintf(stderr, "count_many_test time: start: %s\n", err);
				exit(2);
			}
			while (setops_gpu_stream_done(err, sizeof(err)) == 0)
				;
			for (int i = 0; i < m; i++)
				st[i] = SETOPS_GPU_OK;
			setops_gpu_count_many_finish(p, m, st, errs);
			lat[k] = (now_s() - t0) * 1e6;
			check(a, st, k, m);
		}
		qsort(lat, TRIPS, sizeof(double), cmp_double);
		printf("time %7" PRId64 " keys: trip of %2d counts alone: median %7.1f us, p90 %7.1f us, %6.1f us a count\n",
			   n, m, lat[TRIPS / 2], lat[TRIPS * 9 / 10], lat[TRIPS / 2] / m);
	}
	/* f trips in flight on streams 1..f, each of m counts: counts a second */
	for (int f = 1; f <= MAXF; f *= 2)
		for (int m = 1; m <= 8; m *= 2)
		{
			static SetopsGpuSetopArgs a[MAXF][16];
			SetopsGpuSetopArgs *p[MAXF][16];
			SetopsGpuStatus st[16];
			int			k_of[MAXF],
						next = 0,
						done_trips = 0;
			long		polls = 0;
			double		t0 = now_s(),
						poll_s = 0;

			for (int s = 0; s < f; s++)
			{
				fill_trip(a[s], p[s], next, m);
				k_of[s] = next++;
				(void) setops_gpu_use_stream(0, 1 + s, err, sizeof(err));
				(void) setops_gpu_count_many_start(p[s], m, err, sizeof(err));
			}
			while (done_trips < TRIPS)
			{
				/* (a gap between rounds of polls: whether polling itself slows the trips) */
				if (poll_gap_us > 0)
					for (double g0 = now_s(); (now_s() - g0) * 1e6 < poll_gap_us;)
						;
				for (int s = 0; s < f; s++)
				{
					if (k_of[s] < 0)
						continue;
					double		p0;
					int			done;

					(void) setops_gpu_use_stream(0, 1 + s, err, sizeof(err));
					p0 = now_s();
					done = setops_gpu_stream_done(err, sizeof(err));
					poll_s += now_s() - p0;
					polls++;
					if (done == 0)
						continue;
					for (int i = 0; i < m; i++)
						st[i] = SETOPS_GPU_OK;
					setops_gpu_count_many_finish(p[s], m, st, errs);
					check(a[s], st, k_of[s], m);
					done_trips++;
					k_of[s] = -1;
					if (next < TRIPS)
					{
						fill_trip(a[s], p[s], next, m);
						k_of[s] = next++;
						(void) setops_gpu_count_many_start(p[s], m, err, sizeof(err));
					}
				}
			}
			printf("time %7" PRId64 " keys: %d trips in flight of %d counts: %9.0f counts/s (a poll %.2f us)\n",
				   n, f, m, TRIPS * m / (now_s() - t0), polls ? poll_s * 1e6 / polls : 0);
		}
	(void) setops_gpu_use_stream(0, 0, err, sizeof(err));
	for (int r = 0; r < ROWS; r++)
		setops_gpu_buffer_free(dev[r]);
}

int
main(int argc, char **argv)
{
	bool		full = argc > 1 && strcmp(argv[1], "full") == 0;
	int			batches = full ? 200 : 40;
	char		err[SETOPS_GPU_ERRLEN];

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--mutate") == 0)
			mutate = 1;
	if (setops_gpu_device_count(err, sizeof(err)) < 1)
	{
		fprintf(stderr, "count_many_test: no GPU: %s\n", err);
		return 2;
	}
	if (argc > 1 && strcmp(argv[1], "time") == 0)
	{
		const char *keys = getenv("COUNT_TIME_KEYS");

		if (keys)
			time_counts(atoll(keys));
		else
		{
			time_counts(20000);
			time_counts(1000000);
		}
		printf("count_many_test time: %ld answer checks, %ld failures\n", checks, failures);
		return failures ? 1 : 0;
	}
	for (int bi = 0; bi < batches; bi++)
	{
		int			n = bi % 5 == 0 ? SETOPS_GPU_MANY : (int) testgen_range(4, SETOPS_GPU_MANY);
		std::vector<Case> cases(n);
		std::vector<SetopsGpuSetopArgs> args(n);
		std::vector<SetopsGpuSetopArgs *> ptrs(n);
		std::vector<SetopsGpuStatus> st(n);
		static char errs[SETOPS_GPU_MANY][SETOPS_GPU_ERRLEN];

		for (int k = 0; k < n; k++)
		{
			make_case(cases[k], k, n, full);
			args_of(&args[k], cases[k]);
			ptrs[k] = &args[k];
		}
		/* every other batch as trips in flight at once */
		if (bi % 2 == 1)
			count_many_in_flight(ptrs.data(), n, st.data(), errs);
		else
			setops_gpu_count_many(ptrs.data(), n, st.data(), errs);
		for (int k = 0; k < n; k++)
		{
			int64_t		expect = cases[k].expect + (mutate && k == bi % n ? 1 : 0);
			SetopsGpuSetopArgs alone;
			SetopsGpuStatus sa;

			if (!answer_ok(cases[k], &args[k], st[k], expect, "shared", errs[k]))
				failures++;
			/* the same count alone */
			alone = args[k];
			sa = setops_gpu_setop(&alone, err, sizeof(err));
			if (!answer_ok(cases[k], &alone, sa, expect, "alone", err))
				failures++;
		}
		for (int k = 0; k < n; k++)
		{
			setops_gpu_buffer_free(cases[k].a_dev);
			setops_gpu_buffer_free(cases[k].b_dev);
		}
	}
	for (int bi = 0; bi < (full ? 60 : 24); bi++)
		count_batch_round(bi, full);
	printf("count_many_test%s: %d batches (half as trips in flight, %ld polls found one "
		   "running) and %d count batches, %ld answer checks "
		   "(shared trip, alone, count batch pairs), %ld failures%s\n",
		   mutate ? " --mutate" : "", batches, polls_running, full ? 60 : 24, checks, failures,
		   mutate ? " (a mutated reference: failures expected)" : "");
	return failures ? 1 : 0;
}
