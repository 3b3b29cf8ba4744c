/*
 * array_io.c
 *	  Arrays in and out: the data path around every operation.
 *
 * Moving arrays costs more than any set operation, so each byte is touched
 * as few times as PostgreSQL allows:
 *   - a flat array is used where it lies: detoasting copies only what is
 *     stored out of line or compressed;
 *   - an expanded array that still holds its flat form (what PL/pgSQL
 *     keeps for array variables) is read through that form, never
 *     flattened again;
 *   - an expanded array held element by element is copied once, with the
 *     null and order checks fused into the copy;
 *   - results are allocated at their bound and written in place by the
 *     engine, then the header is set to the real length.
 */
#include "postgres.h"

#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include <sys/mman.h>

#include "setops.h"
#include "args/args.h"
#include "engine/cpu/engine.h"

/*
 * Allocations from here on get a mapping of their own from malloc (glibc's
 * largest mmap threshold), and pages only as they are touched.
 */
#define RESULT_MAPPED_BYTES ((Size) 32 * 1024 * 1024)
#define HUGE_PAGE_BYTES ((uintptr_t) 2 * 1024 * 1024)

SetopsKeyType
setops_key_type_of(Oid elemtype)
{
	if (elemtype == INT4OID)
		return SETOPS_KEY_INT32;
	if (elemtype == INT8OID)
		return SETOPS_KEY_INT64;
	/* the SQL signatures admit only int4[] and int8[] */
	elog(ERROR, "setops: unexpected key element type %u", elemtype);
	return SETOPS_KEY_INT32;		/* keep compiler quiet */
}

Oid
setops_key_elemtype(SetopsKeyType type)
{
	return type == SETOPS_KEY_INT64 ? INT8OID : INT4OID;
}

static void
check_dims(int ndim, int argno, const char *fname)
{
	if (ndim > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: argument %d must be a one-dimensional array",
						fname, argno),
				 errdetail("It has %d dimensions.", ndim),
				 errhint("Flatten it first, for example with array(SELECT unnest(...)).")));
}

static void
report_null(const char *fname, int argno, int64 pos)
{
	ereport(ERROR,
			(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			 errmsg("%s: argument %d must not contain nulls", fname, argno),
			 errdetail("Element %lld is NULL.", (long long) pos + 1),
			 errhint("Remove the nulls first, for example with array_remove(..., NULL).")));
}

/* First null of a flat array's bitmap, or -1. */
static int64
first_null(const bits8 *bitmap, int64 n)
{
	int64		byte;

	for (byte = 0; byte * 8 < n; byte++)
	{
		if (bitmap[byte] != 0xFF)
		{
			int			bit;

			for (bit = 0; bit < 8 && byte * 8 + bit < n; bit++)
				if (!(bitmap[byte] & (1 << bit)))
					return byte * 8 + bit;
		}
	}
	return -1;
}

/* Shape and nulls of a flat array; returns its element count. */
static int64
check_flat(ArrayType *arr, int argno, const char *fname)
{
	int64		n;

	check_dims(ARR_NDIM(arr), argno, fname);
	n = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	if (ARR_HASNULL(arr))
	{
		int64		pos = first_null(ARR_NULLBITMAP(arr), n);

		if (pos >= 0)
			report_null(fname, argno, pos);
	}
	return n;
}

void
setops_report_unsorted(const char *fname, const SetopsKeys *keys, int64 pos)
{
	long long	cur,
				prev;

	if (keys->type == SETOPS_KEY_INT64)
	{
		cur = ((const int64 *) keys->data)[pos];
		prev = ((const int64 *) keys->data)[pos - 1];
	}
	else
	{
		cur = ((const int32 *) keys->data)[pos];
		prev = ((const int32 *) keys->data)[pos - 1];
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: argument %d is not sorted ascending at position %lld",
					fname, keys->argno, (long long) pos + 1),
			 errdetail("Element %lld (%lld) is smaller than element %lld (%lld).",
					   (long long) pos + 1, cur, (long long) pos, prev),
			 errhint("Sort it first with array_sort_gpu().")));
}

/*
 * ERROR unless keys are sorted ascending: one pass, unless the order was
 * already found while copying.  Every argument is read (shape, nulls)
 * before any order is reported, so which error a user sees does not depend
 * on how PostgreSQL happened to hold the arrays.
 */
void
setops_require_sorted(const char *fname, SetopsKeys *keys)
{
	if (!setops_keys_in_order(keys))
		setops_report_unsorted(fname, keys, keys->first_unsorted);
}

/* Are plain keys sorted ascending?  One pass, unless already known. */
bool
setops_keys_in_order(SetopsKeys *keys)
{
	if (!keys->sorted_known)
	{
		keys->first_unsorted = setops_cpu_first_unsorted(keys->type, keys->data, keys->n);
		keys->sorted_known = true;
	}
	return keys->first_unsorted < 0;
}

/* Both arguments, in argument order. */
void
setops_require_sorted2(const char *fname, SetopsKeys *a, SetopsKeys *b)
{
	setops_require_sorted(fname, a);
	setops_require_sorted(fname, b);
}

/*
 * An engine that checked both arguments found bad (a or b) out of order at
 * pos: the ERROR the CPU engine gives, a's order first.  Each argument is
 * plain or known to be in order (an argument sent by its identity was
 * checked when put in the cache).
 */
void
setops_report_unsorted_found(const char *fname, SetopsKeys *a, SetopsKeys *b, SetopsKeys *bad,
							 int64 pos)
{
	bool		bad_stored = bad->form == SETOPS_KEYS_STORED;

	/* packed values decode ascending unless their bytes were altered */
	if (bad->form == SETOPS_KEYS_PACKED || (bad_stored && bad->cache_key->packed))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s: argument %d is a corrupt packed value: its keys do not ascend",
						fname, bad->argno)));
	/*
	 * An argument by identity whose cached keys are out of order (only a
	 * bug could put one in the cache): read here and checked itself, the
	 * error is the one the plain function reports, not a read of keys
	 * never fetched.
	 */
	if (a->form == SETOPS_KEYS_STORED)
		setops_keys_make_plain(a, fname);
	if (b->form == SETOPS_KEYS_STORED)
		setops_keys_make_plain(b, fname);
	if (!bad_stored)
	{
		bad->sorted_known = true;
		bad->first_unsorted = pos;
	}
	setops_require_sorted2(fname, a, b);
	if (bad_stored)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("%s: the GPU's cached copy of argument %d is out of order where the stored value is not",
						fname, bad->argno)));
}

/*
 * Keys held element by element (an expanded array without its flat form):
 * one pass copies them, rejects nulls and notes the first descent.
 */
#define COPY_DVALUES(KEY, GET)												\
	do {																	\
		KEY		   *dst = palloc(Max(n, 1) * sizeof(KEY));					\
		for (i = 0; i < n; i++)												\
		{																	\
			if (dnulls && dnulls[i])										\
				report_null(fname, argno, i);								\
			dst[i] = GET(dvalues[i]);										\
			if (i > 0 && dst[i] <= dst[i - 1])								\
			{																\
				repeats |= dst[i] == dst[i - 1];							\
				if (dst[i] < dst[i - 1] && first_bad < 0)					\
					first_bad = i;											\
			}																\
			if ((i & 0xFFFFF) == 0xFFFFF)									\
				CHECK_FOR_INTERRUPTS();										\
		}																	\
		keys->data = dst;													\
	} while (0)

void
setops_read_keys(Datum datum, int argno, const char *fname, SetopsKeys *keys)
{
	ArrayType  *flat;

	keys->form = SETOPS_KEYS_PLAIN;
	keys->argno = argno;
	keys->sorted_known = false;
	keys->first_unsorted = -1;
	keys->distinct_known = false;
	keys->packed = NULL;
	keys->packed_size = 0;
	keys->stored = (Datum) 0;
	keys->cache_key = NULL;

	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(datum)))
	{
		ExpandedArrayHeader *eah = (ExpandedArrayHeader *) DatumGetEOHP(datum);

		Assert(eah->ea_magic == EA_MAGIC);
		keys->type = setops_key_type_of(eah->element_type);
		check_dims(eah->ndims, argno, fname);
		if (eah->fvalue == NULL)
		{
			const Datum *dvalues = eah->dvalues;
			const bool *dnulls = eah->dnulls;
			int64		n = eah->nelems,
						i,
						first_bad = -1;
			bool		repeats = false;

			if (keys->type == SETOPS_KEY_INT64)
				COPY_DVALUES(int64, DatumGetInt64);
			else
				COPY_DVALUES(int32, DatumGetInt32);
			keys->n = n;
			/* the order is known now; it is reported with the others' */
			keys->sorted_known = true;
			keys->first_unsorted = first_bad;
			keys->distinct_known = first_bad < 0 && !repeats;
			return;
		}
		/* PL/pgSQL variables keep the flat form: read it in place */
		flat = eah->fvalue;
	}
	else
		flat = DatumGetArrayTypeP(datum);	/* copies only if toasted */

	keys->type = setops_key_type_of(ARR_ELEMTYPE(flat));
	keys->n = check_flat(flat, argno, fname);
	keys->data = ARR_DATA_PTR(flat);
}

void
setops_read_values(FunctionCallInfo fcinfo, Datum datum, int argno,
				   const char *fname, int64 nkeys, int keys_argno,
				   SetopsValues *vals)
{
	ExpandedArrayHeader *eah = NULL;
	ArrayType  *flat = NULL;
	int			ndim;
	int64		n;

	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(datum)))
	{
		eah = (ExpandedArrayHeader *) DatumGetEOHP(datum);
		Assert(eah->ea_magic == EA_MAGIC);
		vals->elemtype = eah->element_type;
		flat = eah->fvalue;
		ndim = eah->ndims;
	}
	else
	{
		flat = DatumGetArrayTypeP(datum);
		vals->elemtype = ARR_ELEMTYPE(flat);
		ndim = ARR_NDIM(flat);
	}

	get_typlenbyvalalign(vals->elemtype, &vals->typlen, &vals->typbyval,
						 &vals->typalign);
	if (vals->typlen <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: argument %d has element type %s, which is not fixed-width",
						fname, argno, format_type_be(vals->elemtype)),
				 errhint("Pass positions instead (for example from generate_subscripts()) and look the values up afterwards.")));
	vals->stride = att_align_nominal(vals->typlen, vals->typalign);
	check_dims(ndim, argno, fname);

	if (flat != NULL)
	{
		n = check_flat(flat, argno, fname);
		vals->data = ARR_DATA_PTR(flat);
	}
	else
	{
		/* element by element: one pass into the flat layout */
		char	   *dst;
		int64		i;

		n = eah->nelems;
		dst = palloc(Max(n, 1) * (Size) vals->stride);
		for (i = 0; i < n; i++)
		{
			if (eah->dnulls && eah->dnulls[i])
				report_null(fname, argno, i);
			if (vals->typbyval)
				store_att_byval(dst + i * vals->stride, eah->dvalues[i], vals->typlen);
			else
				memcpy(dst + i * vals->stride, DatumGetPointer(eah->dvalues[i]),
					   vals->typlen);
		}
		vals->data = dst;
	}
	vals->n = n;
	if (n != nkeys)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: argument %d must have as many elements as argument %d",
						fname, argno, keys_argno),
				 errdetail("Argument %d has %lld, argument %d has %lld.",
						   argno, (long long) n, keys_argno, (long long) nkeys),
				 errhint("Pass exactly one value for each key.")));
}

/*
 * A large buffer is a fresh mapping whose pages fault in as it is written,
 * 4 kB at a time (often more time than the operation that fills it): ask
 * for huge pages where transparent huge pages are on madvise.  Below 32 MB
 * it is not worth a system call.
 */
void
setops_advise_huge_pages(void *p, Size bytes)
{
#ifdef MADV_HUGEPAGE
	if (bytes >= RESULT_MAPPED_BYTES)
	{
		char	   *from = (char *) TYPEALIGN(HUGE_PAGE_BYTES, p);
		char	   *to = (char *) TYPEALIGN_DOWN(HUGE_PAGE_BYTES, (char *) p + bytes);

		if (to > from)
			(void) madvise(from, to - from, MADV_HUGEPAGE);
	}
#endif
}

void
setops_result_alloc(SetopsResult *res, Oid elemtype, int stride, int64 capacity,
					const char *fname)
{
	Size		bytes = ARR_OVERHEAD_NONULLS(1) +
		(Size) (capacity + SETOPS_CPU_OUTPUT_SLACK) * stride;

	/* beyond 1 GB only while computing; setops_result_finish checks the end */
	res->array = palloc_extended(bytes, bytes > MaxAllocSize ? MCXT_ALLOC_HUGE : 0);
	setops_advise_huge_pages(res->array, bytes);
	res->data = (char *) res->array + ARR_OVERHEAD_NONULLS(1);
	res->capacity = capacity;
	res->elemtype = elemtype;
	res->stride = stride;
}

Datum
setops_result_finish(SetopsResult *res, int64 n, const char *fname)
{
	ArrayType  *arr = (ArrayType *) res->array;
	Size		bytes;

	if (n == 0)
	{
		pfree(res->array);
		return PointerGetDatum(construct_empty_array(res->elemtype));
	}
	if (n > (int64) MaxArraySize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the result would have %lld elements, more than the maximum array size (%d)",
						fname, (long long) n, (int) MaxArraySize)));
	bytes = ARR_OVERHEAD_NONULLS(1) + (Size) n * res->stride;
	if (bytes > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the result would take %zu bytes, more than the maximum of %zu",
						fname, bytes, (Size) MaxAllocSize)));

	SET_VARSIZE(arr, bytes);
	arr->ndim = 1;
	arr->dataoffset = 0;
	arr->elemtype = res->elemtype;
	ARR_DIMS(arr)[0] = (int) n;
	ARR_LBOUND(arr)[0] = 1;

	/*
	 * Hand back a large unused tail (intersections are often small).  Not
	 * from a mapping of its own: its untouched pages take no memory, and
	 * shrinking it may copy the whole result.
	 */
	if ((res->capacity - n) * (Size) res->stride > 1024 * 1024 &&
		res->capacity > 2 * n &&
		ARR_OVERHEAD_NONULLS(1) + (Size) (res->capacity + SETOPS_CPU_OUTPUT_SLACK) * res->stride <
		RESULT_MAPPED_BYTES)
		arr = repalloc(arr, bytes);
	res->array = NULL;
	return PointerGetDatum(arr);
}

/* Pairs' values by the positions the engine reported (the engine's gather). */
void
setops_gather_values(char *dst, const int64 *pos, int64 n,
					 const SetopsValues *av, const SetopsValues *bv)
{
	setops_cpu_gather_values(dst, pos, n, av->data, av->n, bv ? bv->data : NULL, av->stride);
}
