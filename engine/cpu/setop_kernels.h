/*
 * setop_kernels.h
 *	  Per-key-type loops of the CPU engine, included by setop_engine.c once
 *	  per key type with KEY and SFX defined (C has no templates).
 *
 * Three ways to run one chunk, chosen by setop_engine.c:
 *   merge  - a branch-free merge: one compare per key-rank slot, outputs
 *            stored speculatively and committed by advancing k;
 *   gallop - for sizes 32x apart or more: walk the smaller side's duplicate
 *            runs and find each key's run in the larger side by exponential
 *            search, copying whole stretches of the larger side;
 *   simd   - see simd_avx2.c (intersection and difference).
 * All three emit exactly the std::set_* copies (see setop_kind.h).
 */

#define SETOPS_CAT2(a, b) a##_##b
#define SETOPS_CAT(a, b) SETOPS_CAT2(a, b)
#define F(name) SETOPS_CAT(name, SFX)

/* Copy src[from, from + count) to out, with positions base + from... */
static inline int64_t
F(emit_range) (KEY *out, int64_t *pos, int64_t k, const KEY *src,
			   int64_t from, int64_t count, int64_t base)
{
	if (count <= 0)
		return k;
	memcpy(out + k, src + from, count * sizeof(KEY));
	if (pos)
	{
		int64_t		t;

		for (t = 0; t < count; t++)
			pos[k + t] = base + from + t;
	}
	return k + count;
}

/*
 * Branch-free merge.  The compiler turns the selects into conditional
 * moves; the only branch left is the loop test.  with_pos is a constant at
 * each call site, so the position stores vanish from the keys-only loop.
 */
static inline __attribute__((always_inline)) int64_t
F(merge_loop) (SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb,
			   KEY *out, int64_t *pos, int64_t a_base, int64_t b_base,
			   const int with_pos)
{
	int64_t		i = 0,
				j = 0,
				k = 0;

	switch (op)
	{
		case SETOPS_OP_INTERSECT:
			while (i < na && j < nb)
			{
				KEY			x = a[i],
							y = b[j];

				out[k] = x;
				if (with_pos)
					pos[k] = a_base + i;
				k += (x == y);
				i += (x <= y);
				j += (y <= x);
			}
			return k;
		case SETOPS_OP_DIFFERENCE:
			while (i < na && j < nb)
			{
				KEY			x = a[i],
							y = b[j];

				out[k] = x;
				if (with_pos)
					pos[k] = a_base + i;
				k += (x < y);
				i += (x <= y);
				j += (y <= x);
			}
			return F(emit_range) (out, pos, k, a, i, na - i, a_base);
		case SETOPS_OP_UNION:
			while (i < na && j < nb)
			{
				KEY			x = a[i],
							y = b[j];
				int			take_b = (y < x);

				out[k] = take_b ? y : x;
				if (with_pos)
					pos[k] = take_b ? b_base + j : a_base + i;
				k++;
				i += !take_b;
				j += (y <= x);
			}
			break;
		case SETOPS_OP_SYMDIFF:
			while (i < na && j < nb)
			{
				KEY			x = a[i],
							y = b[j];
				int			lt = (x < y),
							gt = (y < x);

				out[k] = lt ? x : y;
				if (with_pos)
					pos[k] = lt ? a_base + i : b_base + j;
				k += (lt | gt);
				i += !gt;
				j += !lt;
			}
			break;
		case SETOPS_OP_MERGE:
			while (i < na && j < nb)
			{
				KEY			x = a[i],
							y = b[j];
				int			take_b = (y < x);

				out[k] = take_b ? y : x;
				if (with_pos)
					pos[k] = take_b ? b_base + j : a_base + i;
				k++;
				i += !take_b;
				j += take_b;
			}
			break;
	}
	k = F(emit_range) (out, pos, k, a, i, na - i, a_base);
	return F(emit_range) (out, pos, k, b, j, nb - j, b_base);
}

/* First p in [from, n) with a[p] >= x (exact_upper: a[p] > x), searching
 * 1, 2, 4... ahead of from before bisecting. */
static inline int64_t
F(gallop) (const KEY *a, int64_t from, int64_t n, KEY x, int upper)
{
	int64_t		lo = from,
				step = 1,
				hi;

#define SETOPS_BEFORE(v) (upper ? !((x) < (v)) : ((v) < (x)))
	if (lo >= n || !SETOPS_BEFORE(a[lo]))
		return lo;
	/* a[lo] comes before the answer */
	while (lo + step < n && SETOPS_BEFORE(a[lo + step]))
	{
		lo += step;
		step <<= 1;
	}
	hi = lo + step < n ? lo + step : n;
#undef SETOPS_BEFORE
	/* answer in (lo, hi] */
	lo++;
	if (upper)
		return lo + SETOPS_CAT(setops_upper_bound, SFX)(a + lo, hi - lo, x);
	return lo + SETOPS_CAT(setops_lower_bound, SFX)(a + lo, hi - lo, x);
}

/* Keys of one side that have no copy at all on the other side. */
static inline int64_t
F(emit_lonely) (SetopsOp op, int from_a, KEY *out, int64_t *pos, int64_t k,
				const KEY *src, int64_t from, int64_t to, int64_t base)
{
	if (op == SETOPS_OP_INTERSECT || (op == SETOPS_OP_DIFFERENCE && !from_a))
		return k;
	return F(emit_range) (out, pos, k, src, from, to - from, base);
}

/* One key with ca copies at a[ia..] and cb copies at b[jb..]: the
 * key-rank definition, applied to the whole run at once. */
static inline int64_t
F(emit_key) (SetopsOp op, KEY *out, int64_t *pos, int64_t k,
			 const KEY *a, int64_t ia, int64_t ca, int64_t a_base,
			 const KEY *b, int64_t jb, int64_t cb, int64_t b_base)
{
	switch (op)
	{
		case SETOPS_OP_INTERSECT:
			return F(emit_range) (out, pos, k, a, ia, ca < cb ? ca : cb, a_base);
		case SETOPS_OP_UNION:
			k = F(emit_range) (out, pos, k, a, ia, ca, a_base);
			return F(emit_range) (out, pos, k, b, jb + ca, cb - ca, b_base);
		case SETOPS_OP_DIFFERENCE:
			return F(emit_range) (out, pos, k, a, ia + cb, ca - cb, a_base);
		case SETOPS_OP_SYMDIFF:
			if (ca > cb)
				return F(emit_range) (out, pos, k, a, ia + cb, ca - cb, a_base);
			return F(emit_range) (out, pos, k, b, jb + ca, cb - ca, b_base);
		case SETOPS_OP_MERGE:
			k = F(emit_range) (out, pos, k, a, ia, ca, a_base);
			return F(emit_range) (out, pos, k, b, jb, cb, b_base);
	}
	return k;
}

/*
 * Galloping: cost O(small * log(large / small)) comparisons, plus copying
 * for the operations that output the larger side.  Walks the smaller
 * side's duplicate runs; each run's key is found in the larger side by
 * exponential search from where the last one ended.
 */
static int64_t
F(gallop_run) (SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb,
			   KEY *out, int64_t *pos, int64_t a_base, int64_t b_base)
{
	int			small_is_a = na <= nb;
	const KEY  *s = small_is_a ? a : b,
			   *l = small_is_a ? b : a;
	int64_t		ns = small_is_a ? na : nb,
				nl = small_is_a ? nb : na,
				l_base = small_is_a ? b_base : a_base,
				i = 0,
				j = 0,
				k = 0;

	while (i < ns)
	{
		KEY			x = s[i];
		int64_t		ie = F(gallop) (s, i + 1, ns, x, 1);
		int64_t		jl = F(gallop) (l, j, nl, x, 0);
		int64_t		je = F(gallop) (l, jl, nl, x, 1);

		/* keys of the larger side below x have no partner at all */
		k = F(emit_lonely) (op, !small_is_a, out, pos, k, l, j, jl, l_base);
		if (small_is_a)
			k = F(emit_key) (op, out, pos, k, a, i, ie - i, a_base, b, jl, je - jl, b_base);
		else
			k = F(emit_key) (op, out, pos, k, a, jl, je - jl, a_base, b, i, ie - i, b_base);
		i = ie;
		j = je;
	}
	return F(emit_lonely) (op, !small_is_a, out, pos, k, l, j, nl, l_base);
}

static int64_t
F(merge_run) (SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb,
			  KEY *out, int64_t *pos, int64_t a_base, int64_t b_base)
{
	if (pos)
		return F(merge_loop) (op, a, na, b, nb, out, pos, a_base, b_base, 1);
	return F(merge_loop) (op, a, na, b, nb, out, NULL, a_base, b_base, 0);
}

/*
 * Four merges over consecutive key-rank-consistent parts of the chunk,
 * interleaved in one loop.  A branch-free merge is bound by the latency of
 * load -> compare -> advance (about 8 cycles a slot); four independent
 * chains keep the pipeline full (about 2.5x on one core).  Each stream
 * writes into its own region of out, sized by its output bound; the regions
 * are then closed up with memmove.
 */
#define MS_MIN_ELEMS 4096
#define MS_LIVE (i0 < ie0 && j0 < je0 && i1 < ie1 && j1 < je1 &&			\
				 i2 < ie2 && j2 < je2 && i3 < ie3 && j3 < je3)
#define MS_LOOP(STEP, WP)													\
	while (MS_LIVE) { STEP(0, WP) STEP(1, WP) STEP(2, WP) STEP(3, WP) }
#define MS_ISECT(s, WP)														\
	{ KEY x = a[i##s], y = b[j##s]; out[k##s] = x;							\
	  if (WP) pos[k##s] = a_base + i##s;									\
	  k##s += (x == y); i##s += (x <= y); j##s += (y <= x); }
#define MS_DIFF(s, WP)														\
	{ KEY x = a[i##s], y = b[j##s]; out[k##s] = x;							\
	  if (WP) pos[k##s] = a_base + i##s;									\
	  k##s += (x < y); i##s += (x <= y); j##s += (y <= x); }
#define MS_UNION(s, WP)														\
	{ KEY x = a[i##s], y = b[j##s]; int tb = (y < x);						\
	  out[k##s] = tb ? y : x;												\
	  if (WP) pos[k##s] = tb ? b_base + j##s : a_base + i##s;				\
	  k##s++; i##s += !tb; j##s += (y <= x); }
#define MS_SYMDIFF(s, WP)													\
	{ KEY x = a[i##s], y = b[j##s]; int lt = (x < y), gt = (y < x);		\
	  out[k##s] = lt ? x : y;												\
	  if (WP) pos[k##s] = lt ? a_base + i##s : b_base + j##s;				\
	  k##s += (lt | gt); i##s += !gt; j##s += !lt; }
#define MS_MERGE(s, WP)														\
	{ KEY x = a[i##s], y = b[j##s]; int tb = (y < x);						\
	  out[k##s] = tb ? y : x;												\
	  if (WP) pos[k##s] = tb ? b_base + j##s : a_base + i##s;				\
	  k##s++; i##s += !tb; j##s += tb; }
#define MS_DISPATCH(STEP)													\
	do { if (pos) MS_LOOP(STEP, 1) else MS_LOOP(STEP, 0) } while (0)

static int64_t
F(merge_streams) (SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb,
				  KEY *out, int64_t *pos, int64_t a_base, int64_t b_base)
{
	int64_t		sa[5],
				sb[5],
				off[5],
				ii[4],
				jj[4],
				kk[4],
				total;
	int			s;

	if (na + nb < MS_MIN_ELEMS)
		return F(merge_run) (op, a, na, b, nb, out, pos, a_base, b_base);

	sa[0] = sb[0] = off[0] = 0;
	sa[4] = na;
	sb[4] = nb;
	for (s = 1; s < 4; s++)
		F(setops_split) (op, a, na, b, nb, (na + nb) * s / 4, &sa[s], &sb[s]);
	for (s = 0; s < 4; s++)
		off[s + 1] = off[s] + setop_output_bound(op, sa[s + 1] - sa[s], sb[s + 1] - sb[s]);

	{
		/* named scalars, so that the compiler keeps the chains in registers */
		int64_t		i0 = sa[0], j0 = sb[0], k0 = off[0], ie0 = sa[1], je0 = sb[1];
		int64_t		i1 = sa[1], j1 = sb[1], k1 = off[1], ie1 = sa[2], je1 = sb[2];
		int64_t		i2 = sa[2], j2 = sb[2], k2 = off[2], ie2 = sa[3], je2 = sb[3];
		int64_t		i3 = sa[3], j3 = sb[3], k3 = off[3], ie3 = sa[4], je3 = sb[4];

		switch (op)
		{
			case SETOPS_OP_INTERSECT:
				MS_DISPATCH(MS_ISECT);
				break;
			case SETOPS_OP_DIFFERENCE:
				MS_DISPATCH(MS_DIFF);
				break;
			case SETOPS_OP_UNION:
				MS_DISPATCH(MS_UNION);
				break;
			case SETOPS_OP_SYMDIFF:
				MS_DISPATCH(MS_SYMDIFF);
				break;
			case SETOPS_OP_MERGE:
				MS_DISPATCH(MS_MERGE);
				break;
		}
		ii[0] = i0; jj[0] = j0; kk[0] = k0;
		ii[1] = i1; jj[1] = j1; kk[1] = k1;
		ii[2] = i2; jj[2] = j2; kk[2] = k2;
		ii[3] = i3; jj[3] = j3; kk[3] = k3;
	}

	/* finish each stream alone, then close up the regions */
	total = 0;
	for (s = 0; s < 4; s++)
	{
		int64_t		k = kk[s] + F(merge_run) (op, a + ii[s], sa[s + 1] - ii[s],
											  b + jj[s], sb[s + 1] - jj[s],
											  out + kk[s], pos ? pos + kk[s] : NULL,
											  a_base + ii[s], b_base + jj[s]);

		if (off[s] != total)
		{
			memmove(out + total, out + off[s], (k - off[s]) * sizeof(KEY));
			if (pos)
				memmove(pos + total, pos + off[s], (k - off[s]) * sizeof(int64_t));
		}
		total += k - off[s];
	}
	return total;
}

/*
 * SIMD windows only pay when most windows repeat no key.  Probe evenly
 * spaced pairs of neighbours on both sides: at most one repeat in 64.
 */
static int
F(few_repeats) (const KEY *a, int64_t na, const KEY *b, int64_t nb)
{
	int			probes = 0,
				repeats = 0,
				t;

	if (na < 2 || nb < 2)
		return 0;
	for (t = 0; t < 128; t++)
	{
		int64_t		p = 1 + (na - 1) * t / 128,
					q = 1 + (nb - 1) * t / 128;

		repeats += (a[p] == a[p - 1]) + (b[q] == b[q - 1]);
		probes += 2;
	}
	return repeats * 64 <= probes;
}

/* One chunk: pick the loop. */
static int64_t
F(run_chunk) (SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb,
			  KEY *out, int64_t *pos, int64_t a_base, int64_t b_base)
{
	SetopsCpuPath path = forced_path;
	int64_t		lo = na < nb ? na : nb;
	int64_t		hi = na < nb ? nb : na;

	if (path == SETOPS_PATH_AUTO)
	{
		/* one side much smaller, or key ranges that do not overlap */
		if (lo == 0 || hi / lo >= SETOPS_CPU_GALLOP_RATIO ||
			a[na - 1] < b[0] || b[nb - 1] < a[0])
			path = SETOPS_PATH_GALLOP;
		else if ((op == SETOPS_OP_INTERSECT || op == SETOPS_OP_DIFFERENCE) &&
				 simd_now() >= SETOPS_SIMD_AVX2 && F(few_repeats) (a, na, b, nb))
			path = SETOPS_PATH_SIMD;
		else
			path = SETOPS_PATH_MERGE;
	}

	if (path == SETOPS_PATH_GALLOP)
		return F(gallop_run) (op, a, na, b, nb, out, pos, a_base, b_base);
#ifdef SETOPS_HAVE_AVX2
	if (path == SETOPS_PATH_SIMD && simd_now() >= SETOPS_SIMD_AVX2 &&
		(op == SETOPS_OP_INTERSECT || op == SETOPS_OP_DIFFERENCE))
	{
		int64_t		i,
					j,
					k;

		/* SIMD windows stop at a key-rank-consistent (i, j); the scalar
		 * merge finishes from there. */
		k = SETOPS_CAT(setops_avx2_isect_diff, SFX)(op == SETOPS_OP_DIFFERENCE, a, na, b, nb,
										 out, pos, a_base, &i, &j);
		return k + F(merge_run) (op, a + i, na - i, b + j, nb - j, out + k,
								 pos ? pos + k : NULL, a_base + i, b_base + j);
	}
#endif
	return F(merge_streams) (op, a, na, b, nb, out, pos, a_base, b_base);
}

int64_t
F(setops_cpu_setop) (SetopsOp op, const KEY *a, int64_t na,
					 const KEY *b, int64_t nb, KEY *out, int64_t *pos)
{
	SetopsChunks c;
	int64_t		k = 0;

	/* Chunks end on key-rank-consistent splits, so their outputs simply
	 * concatenate; between chunks the caller may cancel. */
	setops_chunks_begin(&c, op, KEYTYPE, a, na, b, nb, chunk_size);
	while (setops_chunks_next(&c))
	{
		k += F(run_chunk) (op, a + c.ai, c.a_end - c.ai, b + c.bi, c.b_end - c.bi,
						   out + k, pos ? pos + k : NULL, c.ai, na + c.bi);
		if (!setops_chunks_last(&c) && interrupt_hook)
			interrupt_hook();
	}
	return k;
}

int64_t
F(setops_cpu_first_unsorted) (const KEY *a, int64_t n)
{
#ifdef SETOPS_HAVE_AVX2
	if (simd_now() >= SETOPS_SIMD_AVX2)
		return SETOPS_CAT(setops_avx2_first_unsorted, SFX)(a, n);
#endif
	return F(setops_first_unsorted_scalar) (a, n);
}

int64_t
F(setops_cpu_unique) (KEY *a, int64_t n)
{
	int64_t		i,
				k;

	if (n == 0)
		return 0;
	for (i = 1, k = 1; i < n; i++)
	{
		a[k] = a[i];
		k += (a[i] != a[k - 1]);
	}
	return k;
}

#undef F
#undef SETOPS_CAT
#undef SETOPS_CAT2
