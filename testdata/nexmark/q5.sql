-- q5: Hot Items. In each 10-second window sliding by 2 seconds, the
-- auctions with the most bids: a hopping-window count joined with the
-- maximum of that count per window (nested aggregation).
-- The batch form puts each bid in its five windows: the one starting at
-- date_bin('2 seconds', date_time) and the four before it; only windows
-- the final watermark (max(date_time) - 2 s) has closed count.
-- streams: bid, bid
-- streaming:
SELECT c.auction, c.num, c.window_start
FROM (SELECT auction, count(*) AS num, window_start
      FROM HOP(bid, date_time, INTERVAL '2 seconds', INTERVAL '10 seconds')
      GROUP BY auction, window_start) c
JOIN (SELECT window_start, max(num) AS maxn
      FROM (SELECT auction, count(*) AS num, window_start
            FROM HOP(bid, date_time, INTERVAL '2 seconds', INTERVAL '10 seconds')
            GROUP BY auction, window_start) n
      GROUP BY window_start) m
  ON c.window_start = m.window_start AND c.num >= m.maxn
-- batch:
WITH c AS (
  SELECT auction, date_bin(INTERVAL '2 seconds', date_time, TIMESTAMP '1970-01-01') - k * INTERVAL '2 seconds' AS window_start, count(*) AS num
  FROM bid CROSS JOIN generate_series(0, 4) AS k
  GROUP BY 1, 2)
SELECT c.auction, c.num, c.window_start
FROM c JOIN (SELECT window_start, max(num) AS maxn FROM c GROUP BY window_start) m
  ON c.window_start = m.window_start AND c.num >= m.maxn
WHERE c.window_start + INTERVAL '10 seconds' <= (SELECT max(date_time) - INTERVAL '2 seconds' FROM bid)
