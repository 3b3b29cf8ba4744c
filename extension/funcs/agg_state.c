/*
 * agg_state.c
 *	  The type setops_agg_state: the aggregates' transition state as a
 *	  value, so that an engine which splits aggregates over servers (Citus)
 *	  can run partial aggregates where the data is and combine their states
 *	  elsewhere.  This file holds its flat form's checks and its text and
 *	  binary forms; exec/aggregate.c holds the state itself.
 *
 * Text form: the operation, the key type, then the keys of the one sorted
 * run as an array literal, e.g. 'union int4 {1,2,2,7}'.  Binary form: the
 * same three in network byte order (int32 op, int32 key size, int64 n,
 * then the keys).  Both are checked on input (known operation and type,
 * keys in ascending order, no NULL): a state read from outside must not be
 * able to make an aggregate answer wrongly.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"

PG_FUNCTION_INFO_V1(setops_agg_state_in);
PG_FUNCTION_INFO_V1(setops_agg_state_out);
PG_FUNCTION_INFO_V1(setops_agg_state_recv);
PG_FUNCTION_INFO_V1(setops_agg_state_send);

static const char *const op_words[] = {
	[SETOPS_OP_INTERSECT] = "intersect",
	[SETOPS_OP_UNION] = "union",
	[SETOPS_OP_MERGE] = "merge"
};

static bool
valid_op(int32 op)
{
	return op == SETOPS_OP_INTERSECT || op == SETOPS_OP_UNION || op == SETOPS_OP_MERGE;
}

static bool
valid_type(int32 type)
{
	return type == SETOPS_KEY_INT32 || type == SETOPS_KEY_INT64;
}

const SetopsAggWire *
setops_agg_wire_check(const SetopsAggWire *wire)
{
	if (VARSIZE(wire) < sizeof(SetopsAggWire) || !valid_op(wire->op) ||
		!valid_type(wire->type) || wire->n < 0 ||
		wire->n != (int64) ((VARSIZE(wire) - sizeof(SetopsAggWire)) / setops_key_size(wire->type)) ||
		VARSIZE(wire) != sizeof(SetopsAggWire) + wire->n * setops_key_size(wire->type))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("setops: malformed aggregate state")));
	return wire;
}

/* A flat state of n keys, its keys still to be filled in. */
static SetopsAggWire *
wire_alloc(int32 op, int32 type, int64 n)
{
	Size		bytes = sizeof(SetopsAggWire) + (Size) n * setops_key_size(type);
	SetopsAggWire *wire;

	if (n < 0 || !AllocSizeIsValid(bytes))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("setops_agg_state: %lld keys are more than a state value can hold",
						(long long) n)));
	wire = palloc0(bytes);
	SET_VARSIZE(wire, bytes);
	wire->op = op;
	wire->type = type;
	wire->n = n;
	return wire;
}

/* The keys of a state read from outside must be a sorted run. */
static void
check_keys_sorted(const SetopsAggWire *wire)
{
	int64		pos = setops_cpu_first_unsorted((SetopsKeyType) wire->type, wire + 1, wire->n);

	if (pos >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("setops_agg_state: the keys are not sorted ascending at position %lld",
						(long long) pos + 1),
				 errhint("A state holds one sorted run of keys, as an aggregate's partial state does.")));
}

/* 'union int4 {1,2,2,7}' */
Datum
setops_agg_state_in(PG_FUNCTION_ARGS)
{
	char	   *str = pstrdup(PG_GETARG_CSTRING(0));
	char	   *save = NULL;
	char	   *op_word = strtok_r(str, " \t\n", &save);
	char	   *type_word = op_word ? strtok_r(NULL, " \t\n", &save) : NULL;
	char	   *keys_text = type_word ? save : NULL;
	int32		op = -1,
				type;
	Oid			elemtype;
	ArrayType  *arr;
	SetopsKeys	keys;
	SetopsAggWire *wire;
	int			i;

	for (i = 0; op_word && i < (int) lengthof(op_words); i++)
		if (op_words[i] && strcmp(op_word, op_words[i]) == 0)
			op = i;
	type = -1;
	for (i = SETOPS_KEY_INT32; type_word && i <= SETOPS_KEY_INT64; i++)
		if (strcmp(type_word, setops_key_type_name((SetopsKeyType) i)) == 0)
			type = i;
	if (keys_text)
		keys_text += strspn(keys_text, " \t\n");
	if (op < 0 || type < 0 || keys_text == NULL || *keys_text == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type setops_agg_state: \"%s\"",
						PG_GETARG_CSTRING(0)),
				 errdetail("Expected the operation (intersect, union or merge), the key type (int4 or int8) and an array of keys, e.g. 'union int4 {1,2,2,7}'.")));
	elemtype = setops_key_elemtype((SetopsKeyType) type);
	arr = DatumGetArrayTypeP(OidInputFunctionCall(F_ARRAY_IN, keys_text, elemtype, -1));
	setops_read_keys(PointerGetDatum(arr), 1, "setops_agg_state", &keys);
	wire = wire_alloc(op, type, keys.n);
	memcpy(wire + 1, keys.data, keys.n * setops_key_size(type));
	check_keys_sorted(wire);
	PG_RETURN_POINTER(wire);
}

Datum
setops_agg_state_out(PG_FUNCTION_ARGS)
{
	const SetopsAggWire *wire = setops_agg_wire_check((const SetopsAggWire *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0)));
	SetopsResult res;
	Datum		arr;
	StringInfoData buf;

	setops_result_alloc(&res, setops_key_elemtype(wire->type), setops_key_size(wire->type),
						wire->n, "setops_agg_state");
	memcpy(res.data, wire + 1, wire->n * setops_key_size(wire->type));
	arr = setops_result_finish(&res, wire->n, "setops_agg_state");
	initStringInfo(&buf);
	appendStringInfo(&buf, "%s %s %s", op_words[wire->op],
					 setops_key_type_name((SetopsKeyType) wire->type),
					 OidOutputFunctionCall(F_ARRAY_OUT, arr));
	PG_RETURN_CSTRING(buf.data);
}

Datum
setops_agg_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int32		op = pq_getmsgint(buf, 4);
	int32		ks = pq_getmsgint(buf, 4);
	int64		n = pq_getmsgint64(buf);
	int32		type = ks == 8 ? SETOPS_KEY_INT64 : ks == 4 ? SETOPS_KEY_INT32 : -1;
	SetopsAggWire *wire;
	int64		i;

	if (!valid_op(op) || type < 0 || n < 0 || n > (buf->len - buf->cursor) / ks)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary setops_agg_state")));
	wire = wire_alloc(op, type, n);
	if (type == SETOPS_KEY_INT64)
		for (i = 0; i < n; i++)
			((int64 *) (wire + 1))[i] = pq_getmsgint64(buf);
	else
		for (i = 0; i < n; i++)
			((int32 *) (wire + 1))[i] = (int32) pq_getmsgint(buf, 4);
	check_keys_sorted(wire);
	PG_RETURN_POINTER(wire);
}

Datum
setops_agg_state_send(PG_FUNCTION_ARGS)
{
	const SetopsAggWire *wire = setops_agg_wire_check((const SetopsAggWire *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0)));
	StringInfoData buf;
	int64		i;

	pq_begintypsend(&buf);
	pq_sendint32(&buf, wire->op);
	pq_sendint32(&buf, (int32) setops_key_size(wire->type));
	pq_sendint64(&buf, wire->n);
	if (wire->type == SETOPS_KEY_INT64)
		for (i = 0; i < wire->n; i++)
			pq_sendint64(&buf, ((const int64 *) (wire + 1))[i]);
	else
		for (i = 0; i < wire->n; i++)
			pq_sendint32(&buf, ((const int32 *) (wire + 1))[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
