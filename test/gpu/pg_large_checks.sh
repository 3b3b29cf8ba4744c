#!/usr/bin/env bash
# test/gpu/pg_large_checks.sh: the operations on arrays across the GPU's
# launch size, inside PostgreSQL, against answers written in plain SQL
# (device_run.sh step `large`; any server with setops installed).
#
# For int4 and int8 keys, arrays A and B are built from generate_series
# with per-key copy counts given by a formula: key k has k % 4 copies in A
# and 3 - k % 4 in B, except one key every SETOPS_CPU_CHUNK elements of
# A and B merged (engine/cpu/engine.h), which has 4099 copies placed so
# that the cut point falls in their middle: all in A, all in B, or in both
# (more in A, more in B), in turn, and at the GPU's chunk boundaries
# (GPU_CHUNK of engine/gpu/setops_api.cu: 2^25 elements of A and B
# together) a kind chosen per key type.  A and B hold about 35M keys each,
# 71M together: each crosses 2^25, and together they cross 2^25 and 2^26.
# Each operation's expected answer is the same formula with the operation's
# copy count (min, max, max(ca - cb, 0), |ca - cb|), in plain SQL with no
# setops function; the answers of array_*_gpu, of the pairs forms (int8
# values: A's copy r of key k has value k * 16384 + r, B's the negation;
# intersection and difference take A's, union A's then B's copies beyond
# A's, symdiff the larger side's unmatched ones) and of array_*_count are
# compared with them by array equality, in each of LARGE_DEVICES (default
# "gpu cpu"), for each of LARGE_TYPES (default "int4 int8").
#
# SETOPS_TEST_MUTATE set (not 0): the expected answers get one copy more of
# the key across the first GPU chunk boundary, so every comparison must
# fail.  LARGE_GPU_CHUNK and LARGE_CPU_CHUNK replace the two sizes (to try
# the script quickly on small arrays).  Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# the cut sizes, from the engines' sources
G=$(sh test/gpu/chunk_log2.sh gpu)
S=$(sh test/gpu/chunk_log2.sh cpu)
if [ -z "$G" ] || [ -z "$S" ]; then
	echo "GPU_CHUNK or SETOPS_CPU_CHUNK not found in the sources (G='$G' S='$S')"
	exit 1
fi
G=$((1 << G))
S=$((1 << S))
# smaller cuts, to try the script itself quickly (not the sizes that matter)
G=${LARGE_GPU_CHUNK:-$G}
S=${LARGE_CPU_CHUNK:-$S}
devices=${LARGE_DEVICES:-gpu cpu}
types=${LARGE_TYPES:-int4 int8}
run_int4=false run_int8=false
for t in $types; do
	case $t in int4) run_int4=true ;; int8) run_int8=true ;; *) echo "LARGE_TYPES: $t is neither int4 nor int8"; exit 2 ;; esac
done
mutate=false
case ${SETOPS_TEST_MUTATE:-0} in 0 | "") ;; *) mutate=true ;; esac
echo "GPU chunk $G, CPU chunk $S elements; devices: $devices; key types: $types; mutated: $mutate"

log=$(mktemp)
psql -X -q -v ON_ERROR_STOP=1 -v G="$G" -v S="$S" -v mutate="$mutate" \
	-v run_int4="$run_int4" -v run_int8="$run_int8" \
	-v devices="{$(echo "$devices" | tr ' ' ',')}" <<'SQL' 2>&1 | tee "$log"
CREATE EXTENSION IF NOT EXISTS setops;
SET max_parallel_workers_per_gather = 0;
SET client_min_messages = notice;

-- Key index k in [0, nkeys) has ca = k % 4 copies in A and cb = 3 - k % 4
-- in B, except the specials: special m (1 <= m <= nspec) is key
-- x_m = (m * p + c) / 3 with p = S - L + 3, c = L - 3 - L / 2 (the keys
-- before it hold 3 x_m + (m - 1)(L - 3) elements, so its L copies straddle
-- m * S), of kind (m + shift) % 4: 0 all in A, 1 all in B, 2 both with
-- more in A, 3 both with more in B.

-- The copies a sequence keeps of a key with ca and cb copies, in order:
-- which side each comes from (1 A, -1 B) and its rank there (from 1).
-- 'a' and 'b' are the inputs; the operations keep (key-rank matching)
--   intersect  min(ca, cb): A's first ones
--   union      max(ca, cb): A's ca, then B's beyond them
--   difference max(ca - cb, 0): A's beyond cb
--   symdiff    |ca - cb|: the larger side's beyond the smaller's count
-- extra: copies more (the planted defect), continuing the pattern.
CREATE FUNCTION pg_temp.copies(seq text, ca int, cb int, extra int)
RETURNS TABLE (side int, rank int) LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE seq WHEN 'a' THEN 1 WHEN 'b' THEN -1 WHEN 'intersect' THEN 1
                    WHEN 'union' THEN CASE WHEN i <= ca THEN 1 ELSE -1 END
                    WHEN 'difference' THEN 1
                    ELSE CASE WHEN ca >= cb THEN 1 ELSE -1 END END,
           CASE seq WHEN 'difference' THEN cb + i
                    WHEN 'symdiff' THEN least(ca, cb) + i
                    ELSE i END
    FROM generate_series(1, CASE seq WHEN 'a' THEN ca WHEN 'b' THEN cb
                                     WHEN 'intersect' THEN least(ca, cb)
                                     WHEN 'union' THEN greatest(ca, cb)
                                     WHEN 'difference' THEN greatest(ca - cb, 0)
                                     ELSE abs(ca - cb) END + extra) i
$$;

-- A query building sequence seq as an array: its keys (keyexpr of the key
-- index k) or its values (side * (k * 16384 + rank): A's copy r of key k
-- has value k * 16384 + r, B's the negation).  The keys of period 4 between
-- two specials come from one generate_series over their positions (the
-- pattern of the four residues' copies), each special from copies().
CREATE FUNCTION pg_temp.seq_sql(seq text, expr text, nkeys bigint, s bigint, l int,
                                nspec bigint, shift int, plus_at bigint)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    pres int[];
    pside int[];
    prank int[];
    pcum int[] := ARRAY[0];
    plen int;
    r int;
BEGIN
    SELECT array_agg(res ORDER BY res, n), array_agg(side ORDER BY res, n),
           array_agg(rank ORDER BY res, n)
      INTO pres, pside, prank
      FROM generate_series(0, 3) res,
           pg_temp.copies(seq, res, 3 - res, 0) WITH ORDINALITY c(side, rank, n);
    plen := coalesce(cardinality(pres), 0);
    FOR r IN 0 .. 2 LOOP
        pcum := pcum || (pcum[r + 1] + (SELECT count(*) FROM pg_temp.copies(seq, r, 3 - r, 0)))::int;
    END LOOP;
    -- segment m: the keys after special m (from 0) up to special m + 1,
    -- then special m + 1
    RETURN format($f$
        SELECT ARRAY(
          SELECT %1$s
          FROM (SELECT m,
                       CASE WHEN m = 0 THEN 0 ELSE (m * %3$s + %4$s) / 3 + 1 END AS lo,
                       CASE WHEN m < %5$s THEN ((m + 1) * %3$s + %4$s) / 3 ELSE %6$s END AS hi
                FROM generate_series(0, %5$s) m) sg,
               LATERAL (
                 SELECT 4 * (t / %7$s) + (%8$L::int[])[t %% %7$s + 1] AS k,
                        (%9$L::int[])[t %% %7$s + 1] AS side, (%10$L::int[])[t %% %7$s + 1] AS rank
                 FROM generate_series(%7$s * (sg.lo / 4) + (%11$L::int[])[sg.lo %% 4 + 1],
                                      %7$s * (sg.hi / 4) + (%11$L::int[])[sg.hi %% 4 + 1] - 1) t
                 WHERE %7$s > 0
                 UNION ALL
                 SELECT sg.hi, c.side, c.rank
                 FROM pg_temp.copies(%12$L, (ARRAY[%13$s, 0, %13$s - %13$s * 3 / 8, %13$s * 3 / 8])[(sg.m + 1 + %14$s) %% 4 + 1],
                                     (ARRAY[0, %13$s, %13$s * 3 / 8, %13$s - %13$s * 3 / 8])[(sg.m + 1 + %14$s) %% 4 + 1],
                                     ((sg.m + 1) * %15$s = %16$s)::int) c
                 WHERE sg.m < %5$s) e)$f$,
        expr, NULL, s - l + 3, l - 3 - l / 2, nspec, nkeys, plen, pres, pside, prank,
        pcum, seq, l, shift, s, plus_at);
END $$;

-- One key type: keyexpr maps the key index k to a key, kind_at_g is the
-- run's kind at the GPU chunk boundaries.
CREATE FUNCTION pg_temp.check(proto anyarray, keyexpr text, kind_at_g int, g bigint, s bigint,
                              mutate bool, devices text[])
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    l int := 4099;
    total bigint := 2 * g + g / 8;
    nspec bigint := (total - l) / s;
    -- the specials add nspec * (l - 3) elements beyond 3 per key
    nkeys bigint := (total - nspec * (l - 3)) / 3;
    shift int := ((kind_at_g - (g / s)) % 4 + 4) % 4;
    plus_at bigint := CASE WHEN mutate THEN g ELSE -1 END;
    valexpr text := 'e.side * (e.k::int8 * 16384 + e.rank)';
    a proto%TYPE;
    b proto%TYPE;
    e proto%TYPE;
    r proto%TYPE;
    av int8[];
    bv int8[];
    ev int8[];
    rv int8[];
    ecount bigint;
    op text;
    dev text;
    bad int := 0;
    checks int := 0;
    ok bool;
    t0 timestamptz;
BEGIN
    t0 := clock_timestamp();
    EXECUTE pg_temp.seq_sql('a', keyexpr, nkeys, s, l, nspec, shift, -1) INTO a;
    EXECUTE pg_temp.seq_sql('b', keyexpr, nkeys, s, l, nspec, shift, -1) INTO b;
    EXECUTE pg_temp.seq_sql('a', valexpr, nkeys, s, l, nspec, shift, -1) INTO av;
    EXECUTE pg_temp.seq_sql('b', valexpr, nkeys, s, l, nspec, shift, -1) INTO bv;
    RAISE NOTICE '%: A % keys, B % keys (% together; % runs of % copies across every % elements, the one at % %), built in % s',
        pg_typeof(a), cardinality(a), cardinality(b), cardinality(a) + cardinality(b), nspec, l, s, g,
        (ARRAY['in A', 'in B', 'in both, A more', 'in both, B more'])[kind_at_g + 1],
        round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1);
    IF cardinality(a) <= g OR cardinality(b) <= g OR cardinality(a) + cardinality(b) <= 2 * g THEN
        RAISE WARNING 'the arrays do not cross the GPU chunk as meant';
        bad := bad + 1;
    END IF;
    FOREACH op IN ARRAY ARRAY['intersect', 'union', 'difference', 'symdiff'] LOOP
        t0 := clock_timestamp();
        EXECUTE pg_temp.seq_sql(op, keyexpr, nkeys, s, l, nspec, shift, plus_at) INTO e;
        EXECUTE pg_temp.seq_sql(op, valexpr, nkeys, s, l, nspec, shift, plus_at) INTO ev;
        RAISE NOTICE '  % expected: % keys, in % s', op, cardinality(e),
            round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1);
        FOREACH dev IN ARRAY devices LOOP
            PERFORM set_config('setops.device', dev, false);
            t0 := clock_timestamp();
            EXECUTE format('SELECT array_%s_gpu($1, $2)', op) INTO r USING a, b;
            ok := r = e;
            checks := checks + 1;
            IF NOT ok THEN
                bad := bad + 1;
                RAISE WARNING 'FAIL % % keys: % outputs, want %; first difference at %', dev, op,
                    cardinality(r), cardinality(e),
                    (SELECT min(i) FROM generate_series(1, greatest(cardinality(r), cardinality(e))) i
                     WHERE r[i] IS DISTINCT FROM e[i]);
            END IF;
            EXECUTE format('SELECT array_%s_count($1, $2)', op) INTO ecount USING a, b;
            checks := checks + 1;
            IF ecount <> cardinality(e) THEN
                bad := bad + 1;
                RAISE WARNING 'FAIL % % count: %, want %', dev, op, ecount, cardinality(e);
            END IF;
            r := NULL;
            EXECUTE format('SELECT keys, vals FROM array_%s_gpu($1, $2, $3, $4)', op)
                INTO r, rv USING a, av, b, bv;
            checks := checks + 1;
            IF NOT (r = e AND rv = ev) THEN
                bad := bad + 1;
                RAISE WARNING 'FAIL % % pairs: % outputs, want %; first difference at %', dev, op,
                    cardinality(r), cardinality(e),
                    (SELECT min(i) FROM generate_series(1, greatest(cardinality(r), cardinality(e))) i
                     WHERE r[i] IS DISTINCT FROM e[i] OR rv[i] IS DISTINCT FROM ev[i]);
            END IF;
            RAISE NOTICE '  % %: keys %, count %, pairs % (% s)', dev, op,
                CASE WHEN ok THEN 'equal' ELSE 'DIFFER' END,
                CASE WHEN ecount = cardinality(e) THEN 'equal' ELSE 'DIFFERS' END,
                CASE WHEN r = e AND rv = ev THEN 'equal' ELSE 'DIFFER' END,
                round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1);
            r := NULL;
            rv := NULL;
        END LOOP;
    END LOOP;
    RAISE NOTICE '%: % answers compared with the plain-SQL ones, % wrong', pg_typeof(a), checks, bad;
    RETURN bad;
END $$;

-- int4 keys 2k - 2^30; int8 keys k (2^33 + 1) - 2^62 (beyond int4)
\if :run_int4
SELECT pg_temp.check(NULL::int4[], '(2 * e.k - 1073741824)::int4', 2, :G, :S, :mutate, :'devices') AS int4_wrong;
\endif
\if :run_int8
SELECT pg_temp.check(NULL::int8[], '(e.k * 8589934593 - 4611686018427387904)::int8', 1, :G, :S, :mutate, :'devices') AS int8_wrong;
\endif
SQL
rc=${PIPESTATUS[0]}
wrong=$(grep -A2 -E '^ *int[48]_wrong' "$log" | grep -E '^ *[0-9]+ *$' | tr -d ' ')
rm -f "$log"
echo "wrong answers per key type: $(echo "$wrong" | tr '\n' ' ')"
[ "$rc" = 0 ] && [ "$(echo "$wrong" | grep -c '^0$')" = "$(echo $types | wc -w)" ]
