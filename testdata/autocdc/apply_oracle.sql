-- PostgreSQL functions that apply table feed in sequence order, as a
-- MERGE per change would (the AUTO CDC oracle of engine/flows_cdc_clauses_oracle_test.go
-- and cmd/weir/flows_cdc_crash_test.go): scd1(ignore v's NULLs, ignore n's
-- NULLs, truncate on op 'T') and scd2(ignore v's, ignore n's, track v, track n).
CREATE FUNCTION scd1(iv bool, inn bool, trunc bool) RETURNS TABLE (rk int, rv text, rn bigint) LANGUAGE plpgsql AS $$
DECLARE c record;
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS s1 (k int PRIMARY KEY, v text, n bigint);
  DELETE FROM s1;
  FOR c IN SELECT * FROM feed ORDER BY seq LOOP
    IF c.op = 'T' AND trunc THEN DELETE FROM s1;
    ELSIF c.k IS NULL THEN CONTINUE;
    ELSIF c.op = 'D' THEN DELETE FROM s1 WHERE s1.k = c.k;
    ELSE INSERT INTO s1 VALUES (c.k, c.v, c.n) ON CONFLICT (k) DO UPDATE
      SET v = CASE WHEN iv THEN coalesce(EXCLUDED.v, s1.v) ELSE EXCLUDED.v END,
          n = CASE WHEN inn THEN coalesce(EXCLUDED.n, s1.n) ELSE EXCLUDED.n END;
    END IF;
  END LOOP;
  RETURN QUERY SELECT * FROM s1 ORDER BY 1;
END $$;
CREATE FUNCTION scd2(iv bool, inn bool, tv bool, tn bool) RETURNS TABLE (rk int, rv text, rn bigint, rs bigint, re bigint) LANGUAGE plpgsql AS $$
DECLARE c record; cur record; nv text; nn bigint; found_cur bool;
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS s2 (k int, v text, n bigint, s bigint, e bigint);
  DELETE FROM s2;
  FOR c IN SELECT * FROM feed WHERE k IS NOT NULL ORDER BY seq LOOP
    SELECT * INTO cur FROM s2 WHERE s2.k = c.k AND s2.e IS NULL;
    found_cur := FOUND;
    IF c.op = 'D' THEN
      UPDATE s2 SET e = c.seq WHERE s2.k = c.k AND s2.e IS NULL;
      CONTINUE;
    END IF;
    nv := c.v; nn := c.n;
    IF found_cur AND iv THEN nv := coalesce(c.v, cur.v); END IF;
    IF found_cur AND inn THEN nn := coalesce(c.n, cur.n); END IF;
    IF NOT found_cur THEN
      INSERT INTO s2 VALUES (c.k, nv, nn, c.seq, NULL);
    ELSIF tv AND nv IS DISTINCT FROM cur.v OR tn AND nn IS DISTINCT FROM cur.n THEN
      UPDATE s2 SET e = c.seq WHERE s2.k = c.k AND s2.e IS NULL;
      INSERT INTO s2 VALUES (c.k, nv, nn, c.seq, NULL);
    ELSE
      UPDATE s2 SET v = nv, n = nn WHERE s2.k = c.k AND s2.e IS NULL;
    END IF;
  END LOOP;
  RETURN QUERY SELECT * FROM s2 ORDER BY 1, 4;
END $$;