/*
 * count_kernels.h
 *	  Counts and predicates of the CPU engine, without building a result:
 *	  included by setop_engine.c after setop_kernels.h, once per key type,
 *	  with KEY and SFX defined (it uses that file's gallop).
 *
 *   intersect count  the key-rank count sum(min(ca, cb)), checking both
 *                    inputs' order on the way: by SIMD count windows in four
 *                    streams where keys rarely repeat, by galloping for
 *                    skewed sizes, else by the operations' chunks; every
 *                    other count follows from it (setop_count_from_intersect);
 *   overlaps         some key in both: leapfrog galloping, stops at the
 *                    first common key;
 *   contains         b's multiset within a's: b's runs found in a by
 *                    galloping, stops at the first run a has too few of.
 * Overlaps and contains leave the order to the caller (see engine.h).
 */

#define SETOPS_CAT2(a, b) a##_##b
#define SETOPS_CAT(a, b) SETOPS_CAT2(a, b)
#define F(name) SETOPS_CAT(name, SFX)

/* Between interrupt checks: runs visited by the galloping loops. */
#define COUNT_RUNS_PER_CHECK 65536

/*
 * Chunks of the merged sequence, each ending on a Balanced Path split, run
 * by the operations' own chunk code (SIMD windows, four merge streams) into
 * the caller's scratch buffer, which stays in cache: storing the matches
 * there costs less than a store-free loop that gives up those paths.  The
 * chunks are large enough that their splits (searches over the whole
 * inputs, cache misses each) cost little per element.
 */
#define COUNT_CHUNKS_PER_CHECK 16

static int64_t
F(count_chunked) (const KEY *a, int64_t na, const KEY *b, int64_t nb, KEY *scratch)
{
	SetopsChunks c;
	int64_t		k = 0,
				chunks = 0;

	setops_chunks_begin(&c, SETOPS_OP_INTERSECT, KEYTYPE, a, na, b, nb, SETOPS_CPU_COUNT_CHUNK);
	while (setops_chunks_next(&c))
	{
		k += F(run_chunk) (SETOPS_OP_INTERSECT, a + c.ai, c.a_end - c.ai, b + c.bi,
						   c.b_end - c.bi, scratch, NULL, 0, 0);
		if (++chunks % COUNT_CHUNKS_PER_CHECK == 0)
			setops_cpu_check_interrupts();
	}
	return k;
}

/* The smaller side's runs, each found in the larger by galloping. */
static int64_t
F(count_gallop) (const KEY *a, int64_t na, const KEY *b, int64_t nb)
{
	const KEY  *s = na <= nb ? a : b,
			   *l = na <= nb ? b : a;
	int64_t		ns = na <= nb ? na : nb,
				nl = na <= nb ? nb : na,
				i = 0,
				j = 0,
				k = 0,
				runs = 0;

	while (i < ns && j < nl)
	{
		KEY			x = s[i];
		int64_t		ie = F(gallop) (s, i + 1, ns, x, 1);
		int64_t		jl = F(gallop) (l, j, nl, x, 0);
		int64_t		je = F(gallop) (l, jl, nl, x, 1);

		k += (ie - i) < (je - jl) ? (ie - i) : (je - jl);
		i = ie;
		j = je;
		if (++runs % COUNT_RUNS_PER_CHECK == 0)
			setops_cpu_check_interrupts();
	}
	return k;
}

/* Branch-free merge count (the windows' leftovers). */
static int64_t
F(count_merge) (const KEY *a, int64_t na, const KEY *b, int64_t nb)
{
	int64_t		i = 0,
				j = 0,
				k = 0;

	while (i < na && j < nb)
	{
		KEY			x = a[i],
					y = b[j];

		k += (x == y);
		i += (x <= y);
		j += (y <= x);
	}
	return k;
}

static inline int
F(out_of_order) (const KEY *a, int64_t na, const KEY *b, int64_t nb)
{
	return F(setops_cpu_first_unsorted) (a, na) >= 0 ||
		F(setops_cpu_first_unsorted) (b, nb) >= 0;
}

#ifdef SETOPS_HAVE_AVX2
/* Rounds of count windows between interrupt checks (about a million keys
 * over four streams) */
#define COUNT_WINDOWS_PER_CHECK 32768
#define COUNT_STREAMS SETOPS_AVX2_COUNT_STREAMS

/*
 * a and b cut into parts on Balanced Path splits (cuts: parts + 1 each).
 * Splits out of step come only from unsorted input; so do neighbours
 * across a cut out of order, which no part sees: -1 for either, else 1.
 */
static int
F(cut_checked) (const KEY *a, int64_t na, const KEY *b, int64_t nb, int parts,
				int64_t *a_cut, int64_t *b_cut)
{
	int			p;

	a_cut[0] = b_cut[0] = 0;
	a_cut[parts] = na;
	b_cut[parts] = nb;
	for (p = 1; p < parts; p++)
		F(setops_split) (SETOPS_OP_INTERSECT, a, na, b, nb, (na + nb) * p / parts,
							 &a_cut[p], &b_cut[p]);
	for (p = 1; p <= parts; p++)
	{
		if (a_cut[p] < a_cut[p - 1] || b_cut[p] < b_cut[p - 1] || a_cut[p] > na || b_cut[p] > nb)
			return -1;
		if (p < parts &&
			((a_cut[p] > 0 && a_cut[p] < na && a[a_cut[p]] < a[a_cut[p] - 1]) ||
			 (b_cut[p] > 0 && b_cut[p] < nb && b[b_cut[p]] < b[b_cut[p] - 1])))
			return -1;
	}
	return 1;
}

/*
 * Count windows (simd_avx2.c) in four streams that end on Balanced Path
 * splits, so that the stream's chains overlap; the windows check the order
 * of the keys they consume, and each stream's leftovers are checked before
 * the scalar merge counts them.  Memory is read once, which is most of a
 * count's cost: building the result and a separate order pass each read
 * it again.  -1 at an order break.
 */
static int64_t
F(count_windows) (const KEY *a, int64_t na, const KEY *b, int64_t nb, int interrupts)
{
	SetopsCountStream st[COUNT_STREAMS];
	int64_t		sa[COUNT_STREAMS + 1],
				sb[COUNT_STREAMS + 1],
				k = 0;
	int			s,
				more;

	if (F(cut_checked) (a, na, b, nb, COUNT_STREAMS, sa, sb) < 0)
		return -1;
	for (s = 0; s < COUNT_STREAMS; s++)
	{
		st[s].i = sa[s];
		st[s].j = sb[s];
		st[s].i_end = sa[s + 1];
		st[s].j_end = sb[s + 1];
		st[s].k = 0;
	}

	/* all four together while each has room, then each alone */
	do
	{
		more = SETOPS_CAT(setops_avx2_isect_count, SFX) (a, b, st, COUNT_STREAMS,
														 COUNT_WINDOWS_PER_CHECK);
		if (more == 0)
			return -1;
		if (interrupts)
			setops_cpu_check_interrupts();
	} while (more == 1);

	for (s = 0; s < COUNT_STREAMS; s++)
	{
		SetopsCountStream *t = &st[s];

		do
		{
			more = SETOPS_CAT(setops_avx2_isect_count, SFX) (a, b, t, 1, COUNT_WINDOWS_PER_CHECK);
			if (more == 0)
				return -1;
			if (interrupts)
				setops_cpu_check_interrupts();
		} while (more == 1);
		/* the pairs up to (i, j) were checked by the windows or above */
		if (F(out_of_order) (a + t->i, t->i_end - t->i, b + t->j, t->j_end - t->j))
			return -1;
		k += t->k + F(count_merge) (a + t->i, t->i_end - t->i, b + t->j, t->j_end - t->j);
	}
	return k;
}

#undef COUNT_WINDOWS_PER_CHECK
#undef COUNT_STREAMS
#endif

/* The count's path: galloping as the operations choose it (sizes far
 * apart, or ranges apart), SIMD windows where keys rarely repeat, else the
 * chunks' own choice (SETOPS_PATH_AUTO). */
static SetopsCpuPath
F(count_path) (const KEY *a, int64_t na, const KEY *b, int64_t nb)
{
	SetopsCpuPath path = forced_path;
	int64_t		lo = na < nb ? na : nb,
				hi = na < nb ? nb : na;

	if (path == SETOPS_PATH_AUTO &&
		(hi / lo >= SETOPS_CPU_GALLOP_RATIO || a[na - 1] < b[0] || b[nb - 1] < a[0]))
		return SETOPS_PATH_GALLOP;
	if (simd_now() >= SETOPS_SIMD_AVX2 &&
		(path == SETOPS_PATH_SIMD || (path == SETOPS_PATH_AUTO && F(few_repeats) (a, na, b, nb))))
		return SETOPS_PATH_SIMD;
	return path == SETOPS_PATH_SIMD ? SETOPS_PATH_AUTO : path;
}

int64_t
F(setops_cpu_intersect_count) (const KEY *a, int64_t na, const KEY *b, int64_t nb, KEY *scratch)
{
	SetopsCpuPath path;

	if (na == 0 || nb == 0)
		return F(out_of_order) (a, na, b, nb) ? -1 : 0;
	path = F(count_path) (a, na, b, nb);
#ifdef SETOPS_HAVE_AVX2
	if (path == SETOPS_PATH_SIMD)
		return F(count_windows) (a, na, b, nb, 1);
#endif
	if (F(out_of_order) (a, na, b, nb))
		return -1;
	if (path == SETOPS_PATH_GALLOP)
		return F(count_gallop) (a, na, b, nb);
	return F(count_chunked) (a, na, b, nb, scratch);
}

/*
 * The count in parts that may run at once (see engine.h): the cuts end on
 * Balanced Path splits, and the pairs of neighbours across them are
 * checked here, the rest by each part's windows.
 */
int
F(setops_cpu_count_split) (const KEY *a, int64_t na, const KEY *b, int64_t nb, int parts,
						   int64_t *a_cut, int64_t *b_cut)
{
	if (na == 0 || nb == 0 || parts < 2 || F(count_path) (a, na, b, nb) != SETOPS_PATH_SIMD)
		return 0;
#ifdef SETOPS_HAVE_AVX2
	if (a_cut == NULL)
		return 1;				/* only asked whether it would cut */
	return F(cut_checked) (a, na, b, nb, parts, a_cut, b_cut);
#else
	return 0;
#endif
}

int64_t
F(setops_cpu_count_part) (const KEY *a, const KEY *b, const int64_t *a_cut, const int64_t *b_cut,
						  int part)
{
#ifdef SETOPS_HAVE_AVX2
	int64_t		a0 = a_cut[part],
				b0 = b_cut[part];

	return F(count_windows) (a + a0, a_cut[part + 1] - a0, b + b0, b_cut[part + 1] - b0, 0);
#else
	return -1;
#endif
}

/*
 * Leapfrog: each side gallops to the other's current key.  Interleaved
 * inputs take one or two compares a step; skewed or disjoint ones skip
 * whole stretches.  With max_steps > 0, -1 when that many steps did not
 * decide.
 */
int
F(setops_cpu_overlaps_within) (const KEY *a, int64_t na, const KEY *b, int64_t nb,
							   int64_t max_steps)
{
	int64_t		i = 0,
				j = 0,
				steps = 0;

	while (i < na && j < nb)
	{
		if (a[i] == b[j])
			return 1;
		if (a[i] < b[j])
			i = F(gallop) (a, i, na, b[j], 0);
		else
			j = F(gallop) (b, j, nb, a[i], 0);
		if (++steps == max_steps)
			return -1;
		if (steps % COUNT_RUNS_PER_CHECK == 0)
			setops_cpu_check_interrupts();
	}
	return 0;
}

int
F(setops_cpu_overlaps) (const KEY *a, int64_t na, const KEY *b, int64_t nb)
{
	return F(setops_cpu_overlaps_within) (a, na, b, nb, 0);
}

/*
 * Each run of b (key x, cb copies) must find x in a at least cb times:
 * with a sorted, that is a[p] == x and a[p + cb - 1] == x where p is x's
 * first place in a; the next search starts after those copies.
 */
int
F(setops_cpu_contains) (const KEY *a, int64_t na, const KEY *b, int64_t nb)
{
	int64_t		i = 0,
				j = 0,
				runs = 0;

	if (nb > na)
		return 0;
	while (j < nb)
	{
		KEY			x = b[j];
		int64_t		je = F(gallop) (b, j + 1, nb, x, 1);
		int64_t		p = F(gallop) (a, i, na, x, 0);

		if (p + (je - j) > na || a[p] != x || a[p + (je - j) - 1] != x)
			return 0;
		i = p + (je - j);
		j = je;
		if (++runs % COUNT_RUNS_PER_CHECK == 0)
			setops_cpu_check_interrupts();
	}
	return 1;
}

#undef COUNT_RUNS_PER_CHECK
#undef COUNT_CHUNKS_PER_CHECK
#undef F
#undef SETOPS_CAT
#undef SETOPS_CAT2
