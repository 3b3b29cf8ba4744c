/*
 * packed_index.c
 *	  Packed values in indexes and in the executor's grouping and joining:
 *	  equality, a total order and hashing (the btree and hash operator
 *	  classes), and the support functions of the GIN operator classes for
 *	  && @> <@ and =.
 *
 * Packed bytes are not canonical: the same keys can be packed at other
 * chunk widths, with other patches or other padding, and a value from
 * bytea keeps the bytes it came with.  So every answer here comes from the
 * decoded keys; the bytes only short-cut (identical bytes are equal values,
 * and different key counts are different values).
 *
 * Order: lexicographic over the decoded keys, a proper prefix first (as
 * PostgreSQL orders one-dimensional arrays).  Two values are equal exactly
 * when they hold the same keys with the same counts.
 *
 * These functions run in long-lived memory contexts (sorting, index
 * builds), so each frees what it decoded or detoasted.
 */
#include "postgres.h"

#include "access/gin.h"
#include "access/stratnum.h"
#include "common/hashfn.h"
#include "miscadmin.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"

PG_FUNCTION_INFO_V1(setops_packed_eq);
PG_FUNCTION_INFO_V1(setops_packed_ne);
PG_FUNCTION_INFO_V1(setops_packed_lt);
PG_FUNCTION_INFO_V1(setops_packed_le);
PG_FUNCTION_INFO_V1(setops_packed_gt);
PG_FUNCTION_INFO_V1(setops_packed_ge);
PG_FUNCTION_INFO_V1(setops_packed_cmp);
PG_FUNCTION_INFO_V1(setops_packed_hash);
PG_FUNCTION_INFO_V1(setops_packed_hash_extended);
PG_FUNCTION_INFO_V1(setops_packed_gin_extract_value);
PG_FUNCTION_INFO_V1(setops_packed_gin_extract_query);
PG_FUNCTION_INFO_V1(setops_packed_gin_consistent);
PG_FUNCTION_INFO_V1(setops_packed_gin_triconsistent);

/* Keys compared (or scanned) between checks for a cancel. */
#define INTERRUPT_STRIDE (1 << 20)

/* A packed argument, checked and decoded; free with setops_release_packed. */
static void
read_decoded(FunctionCallInfo fcinfo, int argidx, const char *fname, SetopsKeys *keys)
{
	setops_read_packed(PG_GETARG_DATUM(argidx), argidx + 1, fname, keys);
	setops_keys_decode(keys, fname);
}

/* Position of the first key where a and b differ, within their first n. */
#define FIRST_DIFFERENCE(KEY, a, b, n, pos)						\
	do {														\
		const KEY  *a_ = (const KEY *) (a);						\
		const KEY  *b_ = (const KEY *) (b);						\
																\
		for ((pos) = 0; (pos) < (n); (pos)++)					\
		{														\
			if (((pos) & (INTERRUPT_STRIDE - 1)) == 0)			\
				CHECK_FOR_INTERRUPTS();							\
			if (a_[(pos)] != b_[(pos)])							\
				break;											\
		}														\
	} while (0)

/* -1, 0 or 1: decoded keys a against b, lexicographically. */
static int
keys_cmp(const SetopsKeys *a, const SetopsKeys *b)
{
	int64		n = Min(a->n, b->n);
	int64		i;

	if (a->type == SETOPS_KEY_INT64)
	{
		FIRST_DIFFERENCE(int64, a->data, b->data, n, i);
		if (i < n)
			return ((const int64 *) a->data)[i] < ((const int64 *) b->data)[i] ? -1 : 1;
	}
	else
	{
		FIRST_DIFFERENCE(int32, a->data, b->data, n, i);
		if (i < n)
			return ((const int32 *) a->data)[i] < ((const int32 *) b->data)[i] ? -1 : 1;
	}
	return a->n < b->n ? -1 : (a->n > b->n ? 1 : 0);
}

/*
 * -1, 0 or 1 from the first keys alone (chunk 0's base, in the value's
 * bytes; an empty value sorts first), or 2 when they do not decide: the
 * same first key.  Most comparisons of unlike values end here, undecoded.
 */
static int
first_key_cmp(const SetopsKeys *a, const SetopsKeys *b)
{
	int64		ka,
				kb;
	bool		has_a = setops_packed_first_key(a, &ka),
				has_b = setops_packed_first_key(b, &kb);

	if (!has_a || !has_b)
		return has_a == has_b ? 0 : (has_a ? 1 : -1);
	return ka == kb ? 2 : (ka < kb ? -1 : 1);
}

/*
 * The two arguments compared: -1, 0 or 1.  eq_only: only whether they are
 * equal matters (0 or not), so different key counts answer without decoding.
 */
static int
packed_compare(FunctionCallInfo fcinfo, const char *fname, bool eq_only)
{
	SetopsKeys	a,
				b;
	int			r;

	setops_read_packed(PG_GETARG_DATUM(0), 1, fname, &a);
	setops_read_packed(PG_GETARG_DATUM(1), 2, fname, &b);
	if (a.type != b.type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: arguments 1 and 2 have different key types", fname)));
	if (eq_only && a.n != b.n)
		r = 1;
	else if (a.packed_size == b.packed_size && memcmp(a.packed, b.packed, a.packed_size) == 0)
		r = 0;
	else
	{
		r = first_key_cmp(&a, &b);
		if (r == 2)
		{
			setops_keys_decode(&a, fname);
			setops_keys_decode(&b, fname);
			r = keys_cmp(&a, &b);
		}
	}
	setops_release_packed(PG_GETARG_DATUM(0), &a);
	setops_release_packed(PG_GETARG_DATUM(1), &b);
	return r;
}

Datum
setops_packed_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(packed_compare(fcinfo, "packed_eq", true) == 0);
}

Datum
setops_packed_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(packed_compare(fcinfo, "packed_ne", true) != 0);
}

Datum
setops_packed_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(packed_compare(fcinfo, "packed_lt", false) < 0);
}

Datum
setops_packed_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(packed_compare(fcinfo, "packed_le", false) <= 0);
}

Datum
setops_packed_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(packed_compare(fcinfo, "packed_gt", false) > 0);
}

Datum
setops_packed_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(packed_compare(fcinfo, "packed_ge", false) >= 0);
}

/* btree support 1 */
Datum
setops_packed_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(packed_compare(fcinfo, "packed_cmp", false));
}

/*
 * Hash of the decoded keys' bytes (so equal values hash alike whatever
 * their packing).  hash_any_extended with seed 0 has hash_any's low 32
 * bits, as the hash operator class requires of support 2.
 */
static uint64
packed_hash(FunctionCallInfo fcinfo, const char *fname, bool extended, uint64 seed)
{
	SetopsKeys	k;
	uint64		h;
	int			len;

	read_decoded(fcinfo, 0, fname, &k);
	/* at most MaxArraySize 8-byte keys: under 1 GB */
	len = (int) (k.n * (int64) setops_key_size(k.type));
	if (extended)
		h = DatumGetUInt64(hash_any_extended((const unsigned char *) k.data, len, seed));
	else
		h = DatumGetUInt32(hash_any((const unsigned char *) k.data, len));
	setops_release_packed(PG_GETARG_DATUM(0), &k);
	return h;
}

/* hash support 1 */
Datum
setops_packed_hash(PG_FUNCTION_ARGS)
{
	PG_RETURN_UINT32((uint32) packed_hash(fcinfo, "packed_hash", false, 0));
}

/* hash support 2 */
Datum
setops_packed_hash_extended(PG_FUNCTION_ARGS)
{
	PG_RETURN_UINT64(packed_hash(fcinfo, "packed_hash_extended", true,
								 (uint64) PG_GETARG_INT64(1)));
}

/* ---- GIN ---- */

/*
 * Strategies of the GIN operator classes (those of PostgreSQL's array_ops).
 * The index holds each row's distinct keys; an empty row is GIN's empty
 * item.  Counts are not in the index: @>, <@ and = are rechecked on the
 * row, && is answered exactly (some key in both is a key-set question).
 */
#define PACKED_GIN_OVERLAPS		1	/* && */
#define PACKED_GIN_CONTAINS		2	/* @> */
#define PACKED_GIN_CONTAINED	3	/* <@ */
#define PACKED_GIN_EQUAL		4	/* = */

/*
 * The distinct keys of the packed value argument argidx, as GIN entries
 * (int4 or int8 datums) palloc'd in the current context; NULL when none.
 */
static Datum *
distinct_entries(FunctionCallInfo fcinfo, int argidx, const char *fname, int32 *nentries)
{
	SetopsKeys	k;
	Datum	   *entries = NULL;
	int32		m = 0;
	int64		i;

	read_decoded(fcinfo, argidx, fname, &k);
	if (k.n > 0)
	{
		/* n <= MaxArraySize: the entry array fits an ordinary palloc */
		entries = palloc(sizeof(Datum) * k.n);
		if (k.type == SETOPS_KEY_INT64)
		{
			const int64 *keys = (const int64 *) k.data;

			for (i = 0; i < k.n; i++)
			{
				if ((i & (INTERRUPT_STRIDE - 1)) == 0)
					CHECK_FOR_INTERRUPTS();
				if (i == 0 || keys[i] != keys[i - 1])
					entries[m++] = Int64GetDatum(keys[i]);
			}
		}
		else
		{
			const int32 *keys = (const int32 *) k.data;

			for (i = 0; i < k.n; i++)
			{
				if ((i & (INTERRUPT_STRIDE - 1)) == 0)
					CHECK_FOR_INTERRUPTS();
				if (i == 0 || keys[i] != keys[i - 1])
					entries[m++] = Int32GetDatum(keys[i]);
			}
		}
	}
	setops_release_packed(PG_GETARG_DATUM(argidx), &k);
	*nentries = m;
	return entries;
}

/* extractValue(value, int32 *nkeys, bool **nullFlags): a row's keys */
Datum
setops_packed_gin_extract_value(PG_FUNCTION_ARGS)
{
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	bool	  **nullFlags = (bool **) PG_GETARG_POINTER(2);
	Datum	   *entries = distinct_entries(fcinfo, 0, "packed_gin_extract_value", nkeys);

	/* packed values hold no nulls */
	*nullFlags = NULL;
	PG_RETURN_POINTER(entries);
}

/*
 * extractQuery(query, int32 *nkeys, StrategyNumber, bool **pmatch,
 * Pointer **extra_data, bool **nullFlags, int32 *searchMode): the query's
 * keys, and which rows an empty query matches.
 */
Datum
setops_packed_gin_extract_query(PG_FUNCTION_ARGS)
{
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	bool	  **nullFlags = (bool **) PG_GETARG_POINTER(5);
	int32	   *searchMode = (int32 *) PG_GETARG_POINTER(6);
	Datum	   *entries;

	if (strategy < PACKED_GIN_OVERLAPS || strategy > PACKED_GIN_EQUAL)
		elog(ERROR, "packed_gin_extract_query: unknown strategy number %d", strategy);
	entries = distinct_entries(fcinfo, 0, "packed_gin_extract_query", nkeys);
	*nullFlags = NULL;
	switch (strategy)
	{
		case PACKED_GIN_OVERLAPS:
			/* no keys: nothing overlaps an empty query (GIN returns no rows) */
			*searchMode = GIN_SEARCH_MODE_DEFAULT;
			break;
		case PACKED_GIN_CONTAINS:
			/* every row contains the empty multiset */
			*searchMode = *nkeys > 0 ? GIN_SEARCH_MODE_DEFAULT : GIN_SEARCH_MODE_ALL;
			break;
		case PACKED_GIN_CONTAINED:
			/* empty rows lie within any query, and have no key to be found by */
			*searchMode = GIN_SEARCH_MODE_INCLUDE_EMPTY;
			break;
		case PACKED_GIN_EQUAL:
			/* an empty query equals the empty rows only */
			*searchMode = *nkeys > 0 ? GIN_SEARCH_MODE_DEFAULT : GIN_SEARCH_MODE_INCLUDE_EMPTY;
			break;
	}
	PG_RETURN_POINTER(entries);
}

/*
 * A row's answer from check[i], whether the row has the query's key i
 * (GIN_MAYBE: not known yet).  GIN_MAYBE is also the answer where the row
 * must be rechecked: the index knows keys, not their counts.
 */
static GinTernaryValue
gin_decide(StrategyNumber strategy, const GinTernaryValue *check, int32 nkeys,
		   const char *fname)
{
	GinTernaryValue res;
	int32		i;

	switch (strategy)
	{
		case PACKED_GIN_OVERLAPS:
			/* exact: some key in both */
			res = GIN_FALSE;
			for (i = 0; i < nkeys && res != GIN_TRUE; i++)
				if (check[i] != GIN_FALSE)
					res = check[i];
			break;
		case PACKED_GIN_CONTAINS:
		case PACKED_GIN_EQUAL:
			/* every query key in the row; the counts (and, for =, the rest) rechecked */
			res = GIN_MAYBE;
			for (i = 0; i < nkeys && res != GIN_FALSE; i++)
				if (check[i] == GIN_FALSE)
					res = GIN_FALSE;
			break;
		case PACKED_GIN_CONTAINED:
			/* the row's other keys are unknown here: every row found is rechecked */
			res = GIN_MAYBE;
			break;
		default:
			elog(ERROR, "%s: unknown strategy number %d", fname, strategy);
			res = GIN_FALSE;	/* keep the compiler quiet */
	}
	return res;
}

/*
 * consistent(bool check[], StrategyNumber, query, int32 nkeys,
 * Pointer extra_data[], bool *recheck, Datum queryKeys[], bool nullFlags[]).
 * A bool is a GinTernaryValue of GIN_FALSE or GIN_TRUE (GIN passes its
 * ternary array to this function the same way).
 */
Datum
setops_packed_gin_consistent(PG_FUNCTION_ARGS)
{
	bool	   *check = (bool *) PG_GETARG_POINTER(0);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);
	GinTernaryValue res;

	StaticAssertStmt(sizeof(bool) == sizeof(GinTernaryValue) &&
					 (int) true == GIN_TRUE && (int) false == GIN_FALSE,
					 "bool is not a GinTernaryValue");
	res = gin_decide(PG_GETARG_UINT16(1), (const GinTernaryValue *) check, PG_GETARG_INT32(3),
					 "packed_gin_consistent");
	*recheck = res == GIN_MAYBE;
	PG_RETURN_BOOL(res != GIN_FALSE);
}

/*
 * triConsistent(GinTernaryValue check[], StrategyNumber, query, int32 nkeys,
 * Pointer extra_data[], Datum queryKeys[], bool nullFlags[])
 */
Datum
setops_packed_gin_triconsistent(PG_FUNCTION_ARGS)
{
	PG_RETURN_GIN_TERNARY_VALUE(gin_decide(PG_GETARG_UINT16(1),
										   (const GinTernaryValue *) PG_GETARG_POINTER(0),
										   PG_GETARG_INT32(3), "packed_gin_triconsistent"));
}
